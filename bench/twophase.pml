/*
 * TwoPhase: Lamport's two-phase commit specification (TwoPhase.tla), in Promela, for comparing
 * SPIN with cmc's examples/twophase. N, the number of resource managers, goes to spin's
 * preprocessor (not to gcc: pan.c uses N as a name of its own):
 *
 *   spin -DN=7 -a bench/twophase.pml && gcc -O2 -DSAFETY -DNOREDUCE -o pan pan.c && ./pan -n
 *
 * How SPIN's "states stored" equal the distinct states of the TLA+ specification (and of cmc):
 *
 * - The TLA+ variables are the only global variables: rmState, tmState, tmPrepared and msgs.
 *   The set msgs is one bit per message that can exist: a Prepared message from each RM, Commit
 *   and Abort. Sets are bit masks, so a value has exactly one encoding.
 * - Every TLA+ action is one d_step: its enabling condition is the d_step's guard and its
 *   effect the body. A d_step is one transition and no state inside it is stored.
 * - Next is a disjunction of actions; those quantified over a resource manager r are the options
 *   of process rm with _pid r (TMRcvPrepared(r) among them: a process here is just the place an
 *   r is bound, not a node of the protocol), the others are the options of process tm. Every
 *   process sits at the head of its loop in every stored state, so the process part of SPIN's
 *   state vector never varies, and a stored state is a valuation of the TLA+ variables.
 * - No variable is local, and the scratch variables the invariant's check uses are hidden
 *   (left out of the state vector).
 *
 * Like examples/twophase/twophase.go, TMRcvPrepared(r), RMRcvCommitMsg(r) and RMRcvAbortMsg(r)
 * are not enabled when they would change nothing (Lamport's spec allows those stuttering steps).
 * That removes only self-loops: the states are the same, and SPIN's "transitions" are cmc's plus
 * one (SPIN counts the initial state as reached by a transition).
 *
 * TCConsistent (no RM aborted while another committed) is asserted after every action, as
 * cmc checks its invariant in every state. Expected states: N=3 288, N=5 8,832, N=7 296,448,
 * N=9 10,340,352.
 */
#ifndef N
#define N 3
#endif

mtype = { working, prepared, committed, aborted, tminit };

mtype rmState[N] = working;
mtype tmState = tminit;
unsigned tmPrepared : N;	/* bit r: the TM knows r is prepared */
unsigned msgPrepared : N;	/* bit r: [type |-> "Prepared", rm |-> r] \in msgs */
bit msgCommit;			/* [type |-> "Commit"] \in msgs */
bit msgAbort;			/* [type |-> "Abort"] \in msgs */

#define ALL ((1 << N) - 1)
#define has(set, r) (((set) >> (r)) & 1)

/* TCConsistent, checked at the end of each action's d_step */
hidden byte i;
hidden byte anyAborted, anyCommitted;
#define CHECK_TCCONSISTENT \
	anyAborted = 0; anyCommitted = 0; i = 0; \
	do \
	:: i < N -> \
		anyAborted = anyAborted || rmState[i] == aborted; \
		anyCommitted = anyCommitted || rmState[i] == committed; \
		i++ \
	:: else -> break \
	od; \
	assert(!(anyAborted && anyCommitted)); \
	i = 0

/* Declared first, so its N instances have _pid 0 .. N-1: the r of its actions. */
active [N] proctype rm()
{
end:	do
	:: d_step { /* TMRcvPrepared(r) */
		tmState == tminit && has(msgPrepared, _pid) && !has(tmPrepared, _pid) ->
		tmPrepared = tmPrepared | (1 << _pid);
		CHECK_TCCONSISTENT }
	:: d_step { /* RMPrepare(r) */
		rmState[_pid] == working ->
		rmState[_pid] = prepared;
		msgPrepared = msgPrepared | (1 << _pid);
		CHECK_TCCONSISTENT }
	:: d_step { /* RMChooseToAbort(r) */
		rmState[_pid] == working ->
		rmState[_pid] = aborted;
		CHECK_TCCONSISTENT }
	:: d_step { /* RMRcvCommitMsg(r) */
		msgCommit && rmState[_pid] != committed ->
		rmState[_pid] = committed;
		CHECK_TCCONSISTENT }
	:: d_step { /* RMRcvAbortMsg(r) */
		msgAbort && rmState[_pid] != aborted ->
		rmState[_pid] = aborted;
		CHECK_TCCONSISTENT }
	od
}

active proctype tm()
{
end:	do
	:: d_step { /* TMCommit */
		tmState == tminit && tmPrepared == ALL ->
		tmState = committed;
		msgCommit = 1;
		CHECK_TCCONSISTENT }
	:: d_step { /* TMAbort */
		tmState == tminit ->
		tmState = aborted;
		msgAbort = 1;
		CHECK_TCCONSISTENT }
	od
}

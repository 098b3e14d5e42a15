// Package worker is the worker side of the coordinator/worker split (DESIGN.md): the user's
// package is built into a binary whose main calls Main, and the coordinator (cmcdap) sends it
// requests, one JSON object per line on file descriptor 3, and reads replies from descriptor 4.
// The worker's stdin, stdout and stderr belong to the model's code: what it prints is shown to the
// user and can never be mistaken for a reply, nor can closing them cut the protocol. User code can panic,
// loop forever or exit the process; running it here keeps the editor's session alive, and the
// worker publishes the transition it is running so a hang or a crash can still be traced.
package worker

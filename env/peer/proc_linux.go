package peer

import "syscall"

// dieWithParent makes the peer die with the checker, which has no hook to stop it when a worker
// is killed. Linux sends the signal when the thread that started the peer exits; Go keeps its
// threads unless a goroutine exits while locked to one (nothing in cmc locks threads).
func dieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

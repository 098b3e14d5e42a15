package peer

import "syscall"

// dieWithParent makes the peer die with the checker, which has no hook to stop it when a worker
// is killed.
func dieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

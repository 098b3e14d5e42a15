package engine

import "syscall"

// yieldThread gives the calling thread's core to another thread that waits for it, if there is
// one; otherwise it returns at once. runtime.Gosched yields only to goroutines: when the search's
// thread and the helper's share one core (the kernel put them there, or another process has the
// other core), a helper spinning for a job keeps the search, which posts the job, off the core.
func yieldThread() { syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }

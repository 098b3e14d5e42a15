//go:build !linux

package peer

import "syscall"

func dieWithParent() *syscall.SysProcAttr { return nil }

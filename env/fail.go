package env

import (
	"reflect"

	"github.com/cmc-go/cmc"
)

// Fail is failure injection at an interface, the analogue of CMC's failing malloc: when on, it is
// a choice whether this call fails, and the checker explores both. Call it in the environment's
// implementation of an interface (a send, an allocation), never in the protocol code.
func Fail(on bool, what string) bool {
	if !on {
		return false
	}
	if cmc.Choose(2) == 0 {
		return false
	}
	if cmc.Noting() {
		cmc.Record(cmc.Note{Kind: "fail", Msg: what})
	}
	return true
}

// Reboot models a crash and restart of a process whose state is *state: everything is lost
// except the fields tagged cmc:"-" (its wiring to the environment, its configuration), and then
// boot runs as the process's start-up code.
func Reboot[T any](state *T, boot func(*T)) {
	v := reflect.ValueOf(state).Elem()
	if v.Kind() == reflect.Struct {
		keep := reflect.New(v.Type()).Elem()
		keep.Set(v)
		v.SetZero()
		for i := range v.NumField() {
			if v.Type().Field(i).Tag.Get("cmc") == "-" {
				f := v.Field(i)
				reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem().Set(
					reflect.NewAt(f.Type(), keep.Field(i).Addr().UnsafePointer()).Elem())
			}
		}
	} else {
		v.SetZero()
	}
	if boot != nil {
		boot(state)
	}
}

// Package broken does not compile.
package broken

func f() int { return "not an int" }

package covered

// pick names a mode; Choose(2) never gives 2.
func pick(i int) string {
	switch i {
	case 0:
		return "a"
	case 1:
		return "b"
	}
	return "c"
}

// unused is never called.
func unused() int { return 1 }

package engine

// Coverage is how much of the user's code a check ran, as Go's own coverage instrumentation
// measured it in the worker (go build -cover; internal/coord reads the counters). The engine only
// carries it in the Result: statements are Go's cover statements, so the figures are those
// go test -cover gives for the same code paths.
type Coverage struct {
	Statements int               `json:"statements"` // in the user's packages
	Covered    int               `json:"covered"`    // statements run at least once
	Files      []FileCoverage    `json:"files"`      // by file name
	Handlers   []HandlerCoverage `json:"handlers"`   // by event, in declaration order
	// Growth is the covered statements and lines after a number of transitions, at every power
	// of two from 4,096 and at the end: where it flattens, the search stopped finding new code.
	Growth []CoveragePoint `json:"growth"`
}

// FileCoverage is one source file's coverage and its blocks, which an editor decorates.
type FileCoverage struct {
	File       string       `json:"file"` // absolute path
	Statements int          `json:"statements"`
	Covered    int          `json:"covered"`
	Lines      int          `json:"lines"`         // lines with a statement
	LinesRun   int          `json:"lines_covered"` // of those, lines a covered block spans
	Blocks     []CoverBlock `json:"blocks"`
}

// A CoverBlock is a run of statements that execute together (go tool cover's block).
type CoverBlock struct {
	StartLine int  `json:"start_line"`
	StartCol  int  `json:"start_col"`
	EndLine   int  `json:"end_line"`
	EndCol    int  `json:"end_col"`
	Stmts     int  `json:"stmts"`
	Covered   bool `json:"covered"`
}

// HandlerCoverage is the coverage of the function an event's handler is: the lines from its
// declaration to its closing brace.
type HandlerCoverage struct {
	Event      string `json:"event"` // Proc.Name
	File       string `json:"file"`
	FirstLine  int    `json:"first_line"`
	LastLine   int    `json:"last_line"`
	Statements int    `json:"statements"`
	Covered    int    `json:"covered"`
	Runs       int64  `json:"runs"`
}

// A CoveragePoint is the coverage after a number of transitions.
type CoveragePoint struct {
	Transitions int64 `json:"transitions"`
	Covered     int   `json:"covered"` // statements
	Lines       int   `json:"lines"`   // lines covered
}

// Percent is covered out of statements, as go test -cover prints it (0 when there are none).
func Percent(covered, statements int) float64 {
	if statements == 0 {
		return 0
	}
	return 100 * float64(covered) / float64(statements)
}

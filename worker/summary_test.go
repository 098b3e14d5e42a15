package worker

import (
	"slices"
	"testing"

	"github.com/cmc-go/cmc"
)

type summarised struct{ N int }

func (s *summarised) RunSummary() string { return "saw things" }

// TestEnvironmentSummary: the components whose root has RunSummary reach the check's result.
func TestEnvironmentSummary(t *testing.T) {
	m := cmc.NewModel("m")
	p := &struct{ X int }{}
	m.Environment("db", &summarised{})
	m.Process("p", p).On("step", func() { p.X++ }, cmc.When(func() bool { return p.X < 1 }))
	if _, err := m.Definition(); err != nil { // as a check does
		t.Fatal(err)
	}
	if got, want := environmentSummary(m), []string{"db: saw things"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

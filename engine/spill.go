package engine

import (
	"os"
	"runtime"
	"unsafe"
)

// Tables a search writes once and reads back rarely or in order (the trail; a BFS level of the
// frontier) go to temporary files once they outgrow a chunk, so memory holds what is being
// written and read, not the whole search. A failure to make or write a file only keeps the table
// in memory, as it would be without files.

// spillFile makes a temporary file for a table. Nothing needs its name: on Unix the file lives
// on, nameless, until it is closed or the process ends, so a killed search leaves nothing
// behind; on Windows, where an open file cannot be removed, closeSpill removes it.
func spillFile() (*os.File, error) {
	f, err := os.CreateTemp("", "cmc-search-*")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	return f, nil
}

func closeSpill(f *os.File) {
	if f == nil {
		return
	}
	f.Close()
	if runtime.GOOS == "windows" { // elsewhere the name went when the file was made, and may be another file's now
		os.Remove(f.Name())
	}
}

// asBytes is the memory of s, whose element type holds no pointers.
func asBytes[T any](s []T) []byte {
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(zero)))
}

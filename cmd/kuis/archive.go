package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kuisboard/kuis"
)

// archiveFiles are the files of a quiz's archive, in the order written, and
// the format of each (as recap -format names them), all in the library's
// default form, which reads back byte for byte.
var archiveFiles = []struct{ name, format string }{
	{"recap.json", "json"},
	{"standings.csv", "standings"},
	{"gradebook.csv", "gradebook"},
	{"answers.csv", "answers"},
}

// render is the recap in a format: "json" is json.Marshal of the Recap;
// "standings", "gradebook" and "answers" are the library's CSV writers
// (Recap.WriteCSV, WriteGradebookCSV, WriteAnswersCSV) with opts.
func render(r kuis.Recap, format string, opts ...kuis.CSVOption) ([]byte, error) {
	var b bytes.Buffer
	var err error
	switch format {
	case "json":
		return json.Marshal(r)
	case "standings":
		err = r.WriteCSV(&b, opts...)
	case "gradebook":
		err = r.WriteGradebookCSV(&b, opts...)
	case "answers":
		err = r.WriteAnswersCSV(&b, opts...)
	default:
		err = fmt.Errorf("unknown format %q", format)
	}
	return b.Bytes(), err
}

// quizDir is the directory of quiz id's archive under dir. A quiz ID is
// ASCII letters, digits, '-', '_' and '.', so it names one directory
// entry, but for "." and "..", which it cannot.
func quizDir(dir, id string) (string, error) {
	if id == "." || id == ".." {
		return "", fmt.Errorf("a quiz named %q cannot have a directory of its own", id)
	}
	return filepath.Join(dir, id), nil
}

// writeArchive writes the recap's archive, every file of archiveFiles, in
// the directory of its quiz under dir, and returns that directory. Each file
// is written to a temporary file in the same directory, flushed to disk,
// closed and renamed to its name; then the directory is flushed, so that the
// renames are on disk too. A file under its final name is therefore always
// complete, and when writeArchive returns nil all four are on disk. Files
// written by an earlier call are replaced whole, and temporary files that a
// call stopped midway left behind are removed.
func writeArchive(dir string, r kuis.Recap) (string, error) {
	qdir, err := quizDir(dir, r.QuizID)
	if err != nil {
		return "", err
	}
	if err := ensureDir(qdir); err != nil {
		return "", err
	}
	for _, f := range archiveFiles {
		stale, _ := filepath.Glob(filepath.Join(qdir, "."+f.name+".*.tmp"))
		for _, s := range stale {
			_ = os.Remove(s)
		}
	}
	for _, f := range archiveFiles {
		data, err := render(r, f.format)
		if err != nil {
			return "", fmt.Errorf("%s: %w", f.name, err)
		}
		if err := writeFile(qdir, f.name, data); err != nil {
			return "", err
		}
	}
	return qdir, syncDir(qdir)
}

// archived reports whether dir holds a whole archive of quiz id: every
// file of archiveFiles, and a recap.json of that quiz.
func archived(dir, id string) bool {
	qdir, err := quizDir(dir, id)
	if err != nil {
		return false
	}
	for _, f := range archiveFiles {
		if st, err := os.Stat(filepath.Join(qdir, f.name)); err != nil || !st.Mode().IsRegular() {
			return false
		}
	}
	b, err := os.ReadFile(filepath.Join(qdir, "recap.json"))
	if err != nil {
		return false
	}
	var r kuis.Recap
	return json.Unmarshal(b, &r) == nil && r.QuizID == id
}

// writeFile writes data to dir/name through a temporary file of that
// directory: written, flushed to disk, closed, renamed. The caller flushes
// the directory. Files are readable by their owner only: grades are
// personal data.
func writeFile(dir, name string, data []byte) (err error) {
	f, err := os.CreateTemp(dir, "."+name+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), filepath.Join(dir, name))
}

// ensureDir makes the directory path and the parents it lacks, each flushed
// into its parent directory, so that a file written into it later is not
// lost with its directory's entry.
func ensureDir(path string) error {
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return nil
	case err == nil:
		return fmt.Errorf("%s is not a directory", path)
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	parent := filepath.Dir(path)
	if parent != path {
		if err := ensureDir(parent); err != nil {
			return err
		}
	}
	if err := os.Mkdir(path, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return syncDir(parent)
}

// syncDir flushes a directory's entries to disk.
func syncDir(path string) error {
	d, err := os.Open(path)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	return nil
}

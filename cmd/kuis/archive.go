package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/wire"
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

// courseFiles are the files of a course's archive, in the order written, and
// the format of each (as course recap -format names them).
var courseFiles = []struct{ name, format string }{
	{"recap.json", "json"},
	{"standings.csv", "standings"},
}

// recap is a quiz's kuis.Recap or a course's kuis.CourseRecap.
type recap interface {
	WriteCSV(w io.Writer, opts ...kuis.CSVOption) error
}

// render is the recap in a format: "json" is json.Marshal of it;
// "standings" is its WriteCSV, and a quiz's "gradebook" and "answers" its
// WriteGradebookCSV and WriteAnswersCSV, with opts.
func render(r recap, format string, opts ...kuis.CSVOption) ([]byte, error) {
	if format == "json" {
		return json.Marshal(r)
	}
	writers := map[string]func(io.Writer, ...kuis.CSVOption) error{"standings": r.WriteCSV}
	if q, ok := r.(kuis.Recap); ok {
		writers["gradebook"], writers["answers"] = q.WriteGradebookCSV, q.WriteAnswersCSV
	}
	write, ok := writers[format]
	if !ok {
		return nil, fmt.Errorf("unknown format %q", format)
	}
	var b bytes.Buffer
	err := write(&b, opts...)
	return b.Bytes(), err
}

// archive is what one archive holds: whose it is (a quiz's or a course's,
// as its recap.json says), the quiz's instance, and its files, recap.json
// first, in the order written.
type archive struct {
	owner    owner
	instance string // a quiz's Recap.Instance, its directory under the quiz's; "" for a course
	files    []archiveFile
}

// archiveFile is one file of an archive: its name and its bytes.
type archiveFile struct {
	name string
	data []byte
}

// owner is whose archive a directory holds: a quiz's or a course's, by ID.
type owner struct {
	kind string // "quiz" or "course"
	id   string
}

func (o owner) String() string { return fmt.Sprintf("%s %q", o.kind, o.id) }

// ownerOf is the owner a recap.json names: its "quiz_id" (a Recap) or its
// "course_id" (a CourseRecap); false for anything else.
func ownerOf(recapJSON []byte) (owner, bool) {
	var r struct {
		QuizID   *string `json:"quiz_id"`
		CourseID *string `json:"course_id"`
	}
	switch err := json.Unmarshal(recapJSON, &r); {
	case err != nil:
		return owner{}, false
	case r.QuizID != nil && r.CourseID == nil:
		return owner{"quiz", *r.QuizID}, true
	case r.CourseID != nil && r.QuizID == nil:
		return owner{"course", *r.CourseID}, true
	}
	return owner{}, false
}

// newArchive is the archive of a recap: a quiz's archiveFiles, in the
// directory of its instance (a recap without one, archived before instances
// existed, is the library's NoInstance), or a course's courseFiles; opts
// (WithDelimiter) shape its CSV files.
func newArchive(r recap, opts ...kuis.CSVOption) (archive, error) {
	a, files := archive{}, courseFiles
	switch r := r.(type) {
	case kuis.Recap:
		a.owner, a.instance, files = owner{"quiz", r.QuizID}, cmp.Or(r.Instance, kuis.NoInstance), archiveFiles
	case kuis.CourseRecap:
		a.owner = owner{"course", r.CourseID}
	}
	for _, f := range files {
		data, err := render(r, f.format, opts...)
		if err != nil {
			return archive{}, fmt.Errorf("%s: %w", f.name, err)
		}
		a.files = append(a.files, archiveFile{f.name, data})
	}
	return a, nil
}

// archiveDir is the directory of id's archive under dir, or of an
// instance's under its quiz's directory. A quiz or course ID is ASCII
// letters, digits, '-', '_' and '.', and an instance a stream ID (digits and
// '-'), so each names one directory entry, but for "." and "..", which it
// cannot.
func archiveDir(dir, id string) (string, error) {
	if id == "." || id == ".." {
		return "", fmt.Errorf("%q cannot name a directory of its own", id)
	}
	return filepath.Join(dir, id), nil
}

// write writes the archive and returns the directory of its files: a
// course's in dir/<course>/, a quiz's in dir/<quiz>/<instance>/, so that an
// ID used again (kuis-02 every week) keeps every instance's files. Each file
// is written to a temporary file in the same directory, flushed to disk,
// closed and renamed to its name; then the directory is flushed, so that the
// renames are on disk too. A file under its final name is therefore always
// complete, and when write returns nil all of them are on disk. Files
// written by an earlier call for the same instance are replaced whole, and
// temporary files that a call stopped midway left behind are removed. A
// directory that holds the archive of another quiz or course (a course and a
// quiz of the same ID archived in one directory) is refused, with nothing
// written.
func (a archive) write(dir string) (string, error) {
	top, err := archiveDir(dir, a.owner.id)
	if err != nil {
		return "", err
	}
	adir := top
	if a.instance != "" {
		if adir, err = archiveDir(top, a.instance); err != nil {
			return "", err
		}
	}
	if err := a.claim(top, adir); err != nil {
		return "", err
	}
	if err := ensureDir(adir); err != nil {
		return "", err
	}
	for _, f := range a.files {
		stale, _ := filepath.Glob(filepath.Join(adir, "."+f.name+".*.tmp"))
		for _, s := range stale {
			_ = os.Remove(s)
		}
	}
	for _, f := range a.files {
		if err := writeFile(adir, f.name, f.data); err != nil {
			return "", err
		}
	}
	return adir, syncDir(adir)
}

// claim refuses, before anything is written, directories that hold another
// owner's archive: a recap.json in top (a course's archive, or a quiz's
// written before instances existed) or in adir that is not the archive's
// owner's, or, for a course, quiz instances' directories in top.
func (a archive) claim(top, adir string) error {
	refuse := fmt.Errorf("%s holds the archive of another quiz or course, not of %s: archive in another directory", top, a.owner)
	for _, d := range []string{top, adir} {
		switch b, err := os.ReadFile(filepath.Join(d, "recap.json")); {
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		case err != nil:
			return err
		default:
			if o, ok := ownerOf(b); !ok || o != a.owner {
				return refuse
			}
		}
	}
	if a.instance != "" {
		return nil
	}
	if held, _ := filepath.Glob(filepath.Join(top, "*", "recap.json")); len(held) > 0 {
		return refuse
	}
	return nil
}

// archived reports whether dir holds a whole archive of o in dir/<id>/:
// every one of files, and a recap.json of o.
func archived(dir string, o owner, files []string) bool {
	adir, err := archiveDir(dir, o.id)
	return err == nil && whole(adir, o, files)
}

// whole reports whether adir holds every one of files, and a recap.json of
// o.
func whole(adir string, o owner, files []string) bool {
	for _, f := range files {
		if st, err := os.Stat(filepath.Join(adir, f)); err != nil || !st.Mode().IsRegular() {
			return false
		}
	}
	b, err := os.ReadFile(filepath.Join(adir, "recap.json"))
	if err != nil {
		return false
	}
	got, ok := ownerOf(b)
	return ok && got == o
}

// latestArchive is the directory of the latest instance of quiz id whose
// archive dir holds whole, by the instance's start (its directory's name);
// an archive written before instances existed, in dir/<quiz>/ itself, is
// NoInstance and so before every other. false when there is none.
func latestArchive(dir, id string) (string, bool) {
	top, err := archiveDir(dir, id)
	if err != nil {
		return "", false
	}
	o, files := owner{"quiz", id}, names(archiveFiles)
	latest, found := wire.ID{}, whole(top, o, files)
	qdir := top
	entries, _ := os.ReadDir(top)
	for _, e := range entries {
		start, ok := wire.ParseID(e.Name())
		if ok && e.IsDir() && (!found || latest.Less(start)) && whole(filepath.Join(top, e.Name()), o, files) {
			latest, found, qdir = start, true, filepath.Join(top, e.Name())
		}
	}
	return qdir, found
}

// names are the names of an archive's files.
func names(files []struct{ name, format string }) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.name
	}
	return out
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

//go:build ignore

// gen_confusables writes confusables_table.go: the two tables behind
// Skeleton and Key, made from Unicode's confusables.txt (UTS #39) as the Go
// module github.com/mtibben/confusables carries it (its tables.go, a map
// literal of the file's mappings, with the file's header). The module is
// read, never imported: `go mod download` fetches the pinned version from
// the module proxy into the module cache, and go/parser reads its map.
//
// Run it with `go generate ./internal/name/` from the repository's root.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// module is the version read: confusables.txt 13.0.0.
const module = "github.com/mtibben/confusables@v0.0.0-20210201002637-9d1b0723b659"

func main() {
	out := flag.String("o", "confusables_table.go", "the file to write")
	flag.Parse()
	header, prototypes := load(download(module))
	dropped := drop(prototypes)
	skeleton := skeletonTable(prototypes)
	key := keyTable(prototypes)
	src := write(header, dropped, skeleton, key)
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("%s: %d mappings read, dropped %q; skeleton table %d entries, key table %d entries, %d bytes of data",
		*out, len(prototypes)+len(dropped), dropped, skeleton.len(), key.len(), skeleton.bytes()+key.bytes())
}

// download fetches mod into the module cache, outside any module (the
// repository's go.mod stays as it is), and returns its directory.
func download(mod string) string {
	tmp, err := os.MkdirTemp("", "gen-confusables")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command("go", "mod", "download", "-json", mod)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GO111MODULE=on")
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		log.Fatalf("go mod download %s: %v", mod, err)
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(b, &info); err != nil || info.Error != "" || info.Dir == "" {
		log.Fatalf("go mod download %s: %v %s", mod, err, info.Error)
	}
	return info.Dir
}

// load reads the module's tables.go: the header of confusables.txt (its
// comment lines) and the map of each source character to its prototype.
func load(dir string) (header []string, prototypes map[rune]string) {
	path := filepath.Join(dir, "tables.go")
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
	if err != nil {
		log.Fatal(err)
	}
	for _, g := range f.Comments {
		text := g.Text()
		if strings.Contains(text, "confusables.txt") && strings.Contains(text, "Unicode") {
			// The file's header starts at its name, after the module's own line.
			text = text[strings.Index(text, "\nconfusables.txt")+1:]
			for line := range strings.SplitSeq(strings.TrimSpace(text), "\n") {
				header = append(header, strings.TrimRight(line, " "))
			}
			break
		}
	}
	if len(header) == 0 {
		log.Fatalf("%s: no header of confusables.txt", path)
	}
	prototypes = make(map[rune]string)
	ast.Inspect(f, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if !ok || len(spec.Names) != 1 || spec.Names[0].Name != "confusablesMap" || len(spec.Values) != 1 {
			return true
		}
		lit, ok := spec.Values[0].(*ast.CompositeLit)
		if !ok {
			log.Fatalf("%s: confusablesMap is no map literal", path)
		}
		for _, e := range lit.Elts {
			kv, ok := e.(*ast.KeyValueExpr)
			if !ok {
				log.Fatalf("%s: %v: not a key: value", path, fset.Position(e.Pos()))
			}
			k, ok1 := kv.Key.(*ast.BasicLit)
			v, ok2 := kv.Value.(*ast.BasicLit)
			if !ok1 || !ok2 || k.Kind != token.INT || v.Kind != token.STRING {
				log.Fatalf("%s: %v: not a rune: string", path, fset.Position(e.Pos()))
			}
			src, err1 := strconv.ParseInt(k.Value, 0, 32)
			proto, err2 := strconv.Unquote(v.Value)
			if err1 != nil || err2 != nil || !utf8.ValidRune(rune(src)) || !utf8.ValidString(proto) || proto == "" {
				log.Fatalf("%s: %v: %s: %s: not a character and its prototype", path, fset.Position(e.Pos()), k.Value, v.Value)
			}
			prototypes[rune(src)] = proto
		}
		return false
	})
	if len(prototypes) < 1000 {
		log.Fatalf("%s: %d mappings: not the table", path, len(prototypes))
	}
	return header, prototypes
}

// basic reports whether r is a letter of the basic Latin, Greek or Cyrillic
// alphabet: the letters a name of those scripts spells itself with.
func basic(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' ||
		'\u0391' <= r && r <= '\u03A9' || '\u03B1' <= r && r <= '\u03C9' ||
		'\u0410' <= r && r <= '\u044F'
}

func script(r rune) string {
	for _, name := range []string{"Latin", "Greek", "Cyrillic"} {
		if unicode.Is(unicode.Scripts[name], r) {
			return name
		}
	}
	return ""
}

// drop leaves out of prototypes each mapping from a basic letter to two or
// more basic letters of its own script (m to rn): both spell names, and
// names a class tells apart (Ami, Arni). The letter becomes its own
// prototype, so every other prototype that spells it as the sequence
// spells it as the letter (the mathematical 𝐦 is m, not rn). It returns
// the mappings it dropped.
func drop(prototypes map[rune]string) map[rune]string {
	dropped := make(map[rune]string)
	for src, proto := range prototypes {
		runes := []rune(proto)
		if !basic(src) || len(runes) < 2 {
			continue
		}
		if !slices.ContainsFunc(runes, func(r rune) bool { return !basic(r) || script(r) != script(src) }) {
			dropped[src] = proto
		}
	}
	for src, proto := range dropped {
		delete(prototypes, src)
		for other, p := range prototypes {
			prototypes[other] = strings.ReplaceAll(p, proto, string(src))
		}
	}
	return dropped
}

// table maps characters to strings: from[i] to to[end[i-1]:end[i]].
type table struct {
	from []rune
	to   strings.Builder
	end  []int
}

func (t *table) add(r rune, s string) {
	t.from = append(t.from, r)
	t.to.WriteString(s)
	t.end = append(t.end, t.to.Len())
}

func (t *table) len() int   { return len(t.from) }
func (t *table) bytes() int { return 4*len(t.from) + 2*len(t.end) + t.to.Len() }

// skeletonTable is UTS #39's mapping: every character NFD leaves as it is
// (Skeleton maps the characters of a string in NFD, so no other is ever
// looked up) to its prototype, made its own skeleton. A few prototypes of
// confusables.txt hold a character whose NFD maps further (ǆ's is dž, whose
// caron is a breve's look-alike): each is mapped until nothing changes, so
// that a skeleton is its own skeleton.
func skeletonTable(prototypes map[rune]string) *table {
	t := new(table)
	for r := range rune(unicode.MaxRune + 1) {
		p, ok := prototypes[r]
		if !ok || norm.NFD.String(string(r)) != string(r) {
			continue
		}
		for n := 0; ; n++ {
			var b strings.Builder
			for _, c := range norm.NFD.String(p) {
				if q, ok := prototypes[c]; ok {
					b.WriteString(q)
				} else {
					b.WriteRune(c)
				}
			}
			next := norm.NFD.String(b.String())
			if next == p {
				break
			}
			if n == 8 {
				log.Fatalf("the prototype of %U keeps changing: %+q", r, next)
			}
			p = next
		}
		t.add(r, p)
	}
	return t
}

// keyer works out the key of each character (see Key's godoc): its
// prototype with case folded, the same for each case of a letter.
type keyer struct {
	prototypes map[rune]string
	fold       cases.Caser
	memo       map[rune]string
	busy       map[rune]bool
}

// keyTable maps every character a key's NFD of NFKC can hold and whose key
// is not the character itself to its key.
func keyTable(prototypes map[rune]string) *table {
	k := &keyer{prototypes: prototypes, fold: cases.Fold(), memo: make(map[rune]string), busy: make(map[rune]bool)}
	t := new(table)
	for r := range rune(unicode.MaxRune + 1) {
		s := string(r)
		if !utf8.ValidRune(r) || norm.NFKC.String(s) != s || norm.NFD.String(s) != s {
			continue
		}
		if key := k.key(r); key != s {
			t.add(r, key)
		}
	}
	// Each key is a key already: a second round of Key changes nothing.
	for i, r := range t.from {
		start := 0
		if i > 0 {
			start = t.end[i-1]
		}
		if key := t.to.String()[start:t.end[i]]; k.of(key) != key {
			log.Fatalf("key of %U: %+q keys to %+q", r, key, k.of(key))
		}
	}
	return t
}

// of is the key of s: the key of each character of the NFD of its NFKC,
// in NFD.
func (k *keyer) of(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(norm.NFKC.String(s)) {
		b.WriteString(k.key(r))
	}
	return norm.NFD.String(b.String())
}

// key is the key of r: the key of its prototype, case folded; for a letter
// with case, the same for both cases: the prototype of its capital when
// that has one (Greek Τ and τ are both t, as Τ is T), else that of its
// small letter (Cyrillic Ԁ and ԁ are both d, as ԁ is d), else the small
// letter; but a capital whose prototype is l and whose small letter's key
// is i (I, Greek Ι, Cyrillic І) keys as its small letter, so that case
// folding keeps i and l apart. The Arabic tatweel keys as nothing.
func (k *keyer) key(r rune) string {
	if key, ok := k.memo[r]; ok {
		return key
	}
	if k.busy[r] {
		log.Fatalf("the key of %U depends on itself", r)
	}
	k.busy[r] = true
	defer delete(k.busy, r)
	key := k.compute(r)
	k.memo[r] = key
	return key
}

func (k *keyer) compute(r rune) string {
	if r == '\u0640' { // the Arabic tatweel only stretches the word it is in
		return ""
	}
	folded := norm.NFD.String(k.caseFold(r))
	small, size := utf8.DecodeRuneInString(folded)
	if size != len(folded) { // ß folds to ss
		return k.of(folded)
	}
	capital := unicode.ToUpper(small)
	if capital == small || norm.NFD.String(k.caseFold(capital)) != string(small) {
		capital = -1 // no capital folds to small
	}
	// A prototype that is the letter in the other case (ꝺ's is Ꝺ) maps
	// nothing a fold does not.
	mapped := func(r rune) (string, bool) {
		p, ok := k.prototypes[r]
		return p, ok && r >= 0 && (utf8.RuneCountInString(p) != 1 || norm.NFD.String(k.caseFold([]rune(p)[0])) != string(small))
	}
	ofSmall := string(small)
	if p, ok := mapped(small); ok {
		ofSmall = k.of(p)
	}
	if p, ok := mapped(capital); ok {
		ofCapital := k.of(p)
		if strings.HasPrefix(ofCapital, "l") && strings.HasPrefix(ofSmall, "i") {
			return ofSmall
		}
		return ofCapital
	}
	return ofSmall
}

// caseFold is r with full Unicode case folding (CaseFolding.txt's C and F
// mappings). x/text's Fold swaps Cherokee's two cases, folding each letter
// to the other (U+13A3 to U+AB73 and back): where folding r twice is not
// folding it once, the lower code point of the two is the fold, as in
// CaseFolding.txt (U+AB73 folds to U+13A3).
func (k *keyer) caseFold(r rune) string {
	f := k.fold.String(string(r))
	if k.fold.String(f) != f {
		if g, size := utf8.DecodeRuneInString(f); size == len(f) {
			return string(min(r, g))
		}
		log.Fatalf("case folding %U twice is not folding it once", r)
	}
	return f
}

// write is the Go source of confusables_table.go.
func write(header []string, dropped map[rune]string, skeleton, key *table) []byte {
	var b bytes.Buffer
	b.WriteString("// Code generated by gen_confusables.go from " + module + "; DO NOT EDIT.\n\n")
	b.WriteString("// The data in this file is derived from Unicode's confusables.txt, whose\n// header reads:\n//\n")
	for _, line := range header {
		if line == "" {
			b.WriteString("//\n")
			continue
		}
		b.WriteString("//   " + line + "\n")
	}
	b.WriteString("//\n// Unicode Data Files license: https://www.unicode.org/license.txt\n\n")
	b.WriteString("package name\n\n")
	srcs := slices.Sorted(func(yield func(rune) bool) {
		for r := range dropped {
			if !yield(r) {
				return
			}
		}
	})
	var left []string
	for _, r := range srcs {
		left = append(left, fmt.Sprintf("%c → %s", r, dropped[r]))
	}
	fmt.Fprintf(&b, "// The skeleton table: UTS #39's prototype of each character NFD leaves as it\n"+
		"// is, %d of them, but for the mappings left out (%s).\n", skeleton.len(), strings.Join(left, ", "))
	writeTable(&b, "skeleton", skeleton)
	fmt.Fprintf(&b, "// The key table: the key of each character NFD and NFKC leave as they are and\n"+
		"// whose key is not itself, %d of them.\n", key.len())
	writeTable(&b, "key", key)
	src, err := format.Source(b.Bytes())
	if err != nil {
		log.Fatalf("format: %v", err)
	}
	return src
}

func writeTable(b *bytes.Buffer, name string, t *table) {
	if t.to.Len() > 1<<16-1 {
		log.Fatalf("%s table: %d bytes of strings: more than uint16 offsets reach", name, t.to.Len())
	}
	fmt.Fprintf(b, "var %sFrom = [%d]rune{", name, t.len())
	for i, r := range t.from {
		if i%12 == 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(b, "0x%04X, ", r)
	}
	b.WriteString("\n}\n\n")
	fmt.Fprintf(b, "var %sEnd = [%d]uint16{", name, t.len())
	for i, e := range t.end {
		if i%16 == 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(b, "%d, ", e)
	}
	b.WriteString("\n}\n\n")
	fmt.Fprintf(b, "const %sTo = \"\" +\n", name)
	to := t.to.String()
	for start := 0; start < len(to); {
		// Lines of about 40 characters, cut between characters.
		end := start
		for n := 0; end < len(to) && n < 40; n++ {
			_, size := utf8.DecodeRuneInString(to[end:])
			end += size
		}
		sep := " +\n"
		if end == len(to) {
			sep = "\n\n"
		}
		b.WriteString("\t" + strconv.QuoteToASCII(to[start:end]) + sep)
		start = end
	}
}

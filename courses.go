package kuis

import (
	"context"
	"sort"
	"strings"
)

// Courses lists, sorted, the IDs of the courses of the store's namespace
// that have a board or a quiz index in the form the options select (with
// WithHashTag, the braced form; IDs are returned without braces): every
// course that holds a fold, complete or in parts. It pages through SCAN ...
// MATCH <ns>:kursus:* and <ns>:kursus-kuis:* (the braced forms with
// WithHashTag) on every primary: O(K), K the number of keys in the
// database, in pages. On a cluster it sees every course that exists for
// the whole call, whatever moves between primaries meanwhile, as Quizzes
// does. Errors: ErrForbidden (the user may not SCAN), ErrUnavailable.
func (s *Store) Courses(ctx context.Context) ([]string, error) {
	n := s.opts.naming
	seen := map[string]bool{}
	for _, object := range []string{"kursus", "kursus-kuis"} {
		prefix := n.namespace + ":" + object + ":"
		pattern := prefix + "*"
		if n.hashTag {
			pattern = prefix + "{*}"
		}
		err := s.scanner().Scan(ctx, pattern, func(keys []string) error {
			for _, k := range keys {
				if id, ok := idAfter(k, prefix, n.hashTag); ok {
					seen[id] = true
				}
			}
			return nil
		})
		if err != nil {
			return nil, replyError(err, "course list of namespace "+quote(n.namespace), "")
		}
	}
	ids := make([]string, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids, nil
}

// idAfter is the ID that key holds after prefix, unbraced when braced is
// set, or false for a key of another form: a ledger's key
// (<ns>:kursus-rincian:...) never matches, nor an ID the ID rule refuses.
func idAfter(key, prefix string, braced bool) (string, bool) {
	id, ok := strings.CutPrefix(key, prefix)
	if !ok {
		return "", false
	}
	if braced {
		if len(id) < 2 || id[0] != '{' || id[len(id)-1] != '}' {
			return "", false
		}
		id = id[1 : len(id)-1]
	}
	return id, validID(id)
}

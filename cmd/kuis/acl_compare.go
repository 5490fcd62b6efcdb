package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kuisboard/kuis"
	"github.com/redis/rueidis"
)

// How acl check compares a user with a role's rules: both are read into
// the permissions the server applies (categories expanded through ACL CAT,
// denials and subcommands in the order given), so that a user whose rules
// Redis prints back otherwise ("+@transaction -discard" for MULTI, EXEC,
// WATCH and UNWATCH) still matches, and what differs is said in rules.

// aclWant is what acl check wants of a user: the rules of role for flags
// in namespace, and password when not empty.
type aclWant struct {
	role      kuis.Role
	flags     aclFlags
	namespace string
	password  string
}

// serverUser is a user as ACL GETUSER prints it: its flags, its passwords'
// SHA-256 in hex, and its root permissions and selectors, each a list of
// rules as ACL SETUSER takes them.
type serverUser struct {
	flags, passwords []string
	root             []string
	selectors        [][]string
}

// parseGetuser decodes ACL GETUSER's reply (Redis 7: flags, passwords,
// commands, keys, channels and selectors, the last a list of maps of
// commands, keys and channels; the permissions each one string of rules).
func parseGetuser(m rueidis.RedisMessage) (serverUser, error) {
	f, err := m.AsMap()
	if err != nil {
		return serverUser{}, err
	}
	var u serverUser
	flags, passwords, selectors := f["flags"], f["passwords"], f["selectors"]
	if u.flags, err = flags.AsStrSlice(); err != nil {
		return serverUser{}, fmt.Errorf("flags: %w", err)
	}
	if u.passwords, err = passwords.AsStrSlice(); err != nil {
		return serverUser{}, fmt.Errorf("passwords: %w", err)
	}
	if u.root, err = permRules(f); err != nil {
		return serverUser{}, err
	}
	sels, err := selectors.ToArray()
	if err != nil {
		return serverUser{}, fmt.Errorf("selectors: %w", err)
	}
	for _, s := range sels {
		sf, err := s.AsMap()
		if err != nil {
			return serverUser{}, fmt.Errorf("selectors: %w", err)
		}
		rules, err := permRules(sf)
		if err != nil {
			return serverUser{}, fmt.Errorf("selectors: %w", err)
		}
		u.selectors = append(u.selectors, rules)
	}
	return u, nil
}

// permRules are the rules of GETUSER's fields commands, keys and channels
// (a root's or a selector's).
func permRules(f map[string]rueidis.RedisMessage) ([]string, error) {
	var rules []string
	for _, field := range []string{"keys", "channels", "commands"} {
		m := f[field]
		s, err := m.ToString()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", field, err)
		}
		rules = append(rules, strings.Fields(s)...)
	}
	return rules, nil
}

// aclPerms is a root's or a selector's permissions as the server applies
// them: a base (every command or none), the commands and subcommands
// allowed or denied beyond it, and the key and channel patterns.
type aclPerms struct {
	all      bool
	commands map[string]bool // "get", "client|setname": allowed
	keys     map[string]bool // "~p", "%R~p", "%W~p"
	channels map[string]bool // "&p"
}

// categories lists the commands and subcommands of an ACL category (ACL
// CAT NAME), as the server knows them.
type categories func(name string) ([]string, error)

// newPerms are the permissions of a user after reset, or of a new
// selector: nothing.
func newPerms() *aclPerms {
	return &aclPerms{commands: map[string]bool{}, keys: map[string]bool{}, channels: map[string]bool{}}
}

// permsOf applies rules in their order to nothing, as ACL SETUSER does.
func permsOf(rules []string, cat categories) (*aclPerms, error) {
	p := newPerms()
	for _, r := range rules {
		if err := p.apply(r, cat); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// apply applies one rule.
func (p *aclPerms) apply(rule string, cat categories) error {
	r := strings.ToLower(rule)
	switch {
	case r == "resetkeys":
		clear(p.keys)
	case r == "allkeys":
		p.keys["~*"] = true
	case strings.HasPrefix(r, "~"):
		p.keys[rule] = true
	case strings.HasPrefix(r, "%"):
		perm, pattern, ok := strings.Cut(rule[1:], "~")
		if !ok {
			return fmt.Errorf("key rule %q: no ~", rule)
		}
		switch strings.ToUpper(perm) {
		case "R":
			p.keys["%R~"+pattern] = true
		case "W":
			p.keys["%W~"+pattern] = true
		case "RW", "WR":
			p.keys["~"+pattern] = true
		default:
			return fmt.Errorf("key rule %q: unknown permission", rule)
		}
	case r == "resetchannels":
		clear(p.channels)
	case r == "allchannels":
		p.channels["&*"] = true
	case strings.HasPrefix(r, "&"):
		p.channels[rule] = true
	case r == "allcommands", r == "+@all":
		p.all = true
		clear(p.commands)
	case r == "nocommands", r == "-@all":
		p.all = false
		clear(p.commands)
	case strings.HasPrefix(r, "+@"), strings.HasPrefix(r, "-@"):
		cmds, err := cat(r[2:])
		if err != nil {
			return err
		}
		for _, c := range cmds {
			p.set(strings.ToLower(c), r[0] == '+')
		}
	case strings.HasPrefix(r, "+"), strings.HasPrefix(r, "-"):
		p.set(r[1:], r[0] == '+')
	default:
		return fmt.Errorf("unknown rule %q", rule)
	}
	return nil
}

// set allows or denies a command, and with it each of its subcommands, or
// one subcommand.
func (p *aclPerms) set(cmd string, allow bool) {
	if !strings.Contains(cmd, "|") {
		maps.DeleteFunc(p.commands, func(k string, _ bool) bool { return strings.HasPrefix(k, cmd+"|") })
	}
	p.commands[cmd] = allow
}

// allows reports whether a command or subcommand is allowed.
func (p *aclPerms) allows(cmd string) bool {
	if v, ok := p.commands[cmd]; ok {
		return v
	}
	if parent, _, ok := strings.Cut(cmd, "|"); ok {
		if v, ok := p.commands[parent]; ok {
			return v
		}
	}
	return p.all
}

// permDiff is how two permissions differ: what got lacks of want, and what
// it has beyond, each as rules.
type permDiff struct{ lacks, extra []string }

func (d permDiff) empty() bool { return len(d.lacks) == 0 && len(d.extra) == 0 }

// diffPerms compares got with want.
func diffPerms(want, got *aclPerms) permDiff {
	var d permDiff
	if want.all != got.all {
		if want.all {
			d.lacks = append(d.lacks, "+@all")
		} else {
			d.extra = append(d.extra, "+@all")
		}
	}
	cmds := map[string]bool{}
	for _, p := range []*aclPerms{want, got} {
		for c := range p.commands {
			cmds[c] = true
			if parent, _, ok := strings.Cut(c, "|"); ok {
				cmds[parent] = true
			}
		}
	}
	// A difference of the bases says the rest: "+@all" lists no command.
	lacksAll, hasAll := want.all && !got.all, got.all && !want.all
	for _, c := range slices.Sorted(maps.Keys(cmds)) {
		switch w, g := want.allows(c), got.allows(c); {
		case w && !g && !lacksAll:
			d.lacks = append(d.lacks, "+"+c)
		case g && !w && !hasAll:
			d.extra = append(d.extra, "+"+c)
		}
	}
	for _, set := range []func(*aclPerms) map[string]bool{
		func(p *aclPerms) map[string]bool { return p.keys },
		func(p *aclPerms) map[string]bool { return p.channels },
	} {
		w, g := set(want), set(got)
		for _, k := range slices.Sorted(maps.Keys(w)) {
			if !g[k] {
				d.lacks = append(d.lacks, k)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(g)) {
			if !w[k] {
				d.extra = append(d.extra, k)
			}
		}
	}
	return d
}

// aclShape is a user's permissions: its root's, and its selectors' with
// the rules each was read from, for a message.
type aclShape struct {
	root      *aclPerms
	selectors []*aclPerms
	texts     []string
}

// shapeOf is the shape of rules as ACLRules writes them: a selector is one
// rule in parentheses.
func shapeOf(rules []string, cat categories) (aclShape, error) {
	var s aclShape
	var root []string
	for _, r := range rules {
		if inner, ok := strings.CutPrefix(r, "("); ok {
			p, err := permsOf(strings.Fields(strings.TrimSuffix(inner, ")")), cat)
			if err != nil {
				return aclShape{}, err
			}
			s.selectors, s.texts = append(s.selectors, p), append(s.texts, r)
			continue
		}
		root = append(root, r)
	}
	p, err := permsOf(root, cat)
	s.root = p
	return s, err
}

// shapeOfUser is the shape of a user ACL GETUSER printed.
func shapeOfUser(u serverUser, cat categories) (aclShape, error) {
	root, err := permsOf(u.root, cat)
	if err != nil {
		return aclShape{}, err
	}
	s := aclShape{root: root}
	for _, rules := range u.selectors {
		p, err := permsOf(rules, cat)
		if err != nil {
			return aclShape{}, err
		}
		s.selectors, s.texts = append(s.selectors, p), append(s.texts, "("+strings.Join(rules, " ")+")")
	}
	return s, nil
}

// diffShapes is how got differs from want: the root's rules, then each
// selector of want that got lacks and each of got that want lacks.
func diffShapes(want, got aclShape) permDiff {
	d := diffPerms(want.root, got.root)
	matched := make([]bool, len(got.selectors))
	for i, w := range want.selectors {
		j := -1
		for k, g := range got.selectors {
			if !matched[k] && diffPerms(w, g).empty() {
				j = k
				break
			}
		}
		if j < 0 {
			d.lacks = append(d.lacks, want.texts[i])
			continue
		}
		matched[j] = true
	}
	for j, m := range matched {
		if !m {
			d.extra = append(d.extra, got.texts[j])
		}
	}
	return d
}

// diff says how u differs from what w wants, "" when it does not: that it
// is off, has another password, or other rules; rules that are the role's
// for other options, or another role's, are named so.
func (w aclWant) diff(u serverUser, cat categories) (string, error) {
	var says []string
	if slices.Contains(u.flags, "off") {
		says = append(says, "is off: it cannot log in")
	}
	if slices.Contains(u.flags, "nopass") {
		says = append(says, "takes any password (nopass)")
	}
	if w.password != "" {
		sum := sha256.Sum256([]byte(w.password))
		if len(u.passwords) != 1 || u.passwords[0] != hex.EncodeToString(sum[:]) {
			says = append(says, "has another password than the one given")
		}
	}
	got, err := shapeOfUser(u, cat)
	if err != nil {
		return "", err
	}
	want, err := shapeOf(kuis.ACLRules(w.role, w.flags.options(w.namespace)...), cat)
	if err != nil {
		return "", err
	}
	d := diffShapes(want, got)
	if !d.empty() {
		says = append(says, w.rulesWords(d, got, cat))
	}
	return strings.Join(says, "; "), nil
}

// rulesWords says how rules got differ from those w wants (d): those of
// the role for other options say what each option needs, those of another
// role name it, any others list what they lack and have beyond.
func (w aclWant) rulesWords(d permDiff, got aclShape, cat categories) string {
	for _, r := range roles {
		for _, f := range []aclFlags{{}, {replicas: true}, {cache: true}, {replicas: true, cache: true}} {
			other, err := shapeOf(kuis.ACLRules(r, f.options(w.namespace)...), cat)
			if err != nil || !diffShapes(other, got).empty() {
				continue
			}
			if r != w.role {
				return fmt.Sprintf("has the rules of role %s, not %s (kuis acl apply %s makes them)", strings.TrimSpace(r.String()+" "+f.String()), w.role, strings.TrimSpace(w.role.String()+" "+w.flags.String()))
			}
			return w.optionWords(f, cat)
		}
	}
	var says []string
	if len(d.lacks) > 0 {
		says = append(says, "lacks "+strings.Join(d.lacks, " "))
	}
	if len(d.extra) > 0 {
		says = append(says, "also allows "+strings.Join(d.extra, " "))
	}
	return fmt.Sprintf("differs from the rules of role %s: %s", strings.TrimSpace(w.role.String()+" "+w.flags.String()), strings.Join(says, "; "))
}

// optionWords says, of a user with the rules of w's role for the options
// got, what each option that differs from w's needs.
func (w aclWant) optionWords(got aclFlags, cat categories) string {
	needs := func(with, without aclFlags) string {
		a, errA := shapeOf(kuis.ACLRules(w.role, with.options(w.namespace)...), cat)
		b, errB := shapeOf(kuis.ACLRules(w.role, without.options(w.namespace)...), cat)
		if errA != nil || errB != nil {
			return ""
		}
		return strings.Join(diffShapes(a, b).lacks, " ")
	}
	var says []string
	for _, o := range []struct {
		want, got bool
		option    string
		flag      string
		set       func(f aclFlags, on bool) aclFlags
	}{
		{w.flags.replicas, got.replicas, "WithReplicas", "-replicas", func(f aclFlags, on bool) aclFlags { f.replicas = on; return f }},
		{w.flags.cache, got.cache, "WithClientCache", "-client-cache", func(f aclFlags, on bool) aclFlags { f.cache = on; return f }},
	} {
		what := needs(o.set(got, true), o.set(got, false))
		switch {
		case o.want && !o.got:
			says = append(says, fmt.Sprintf("lacks what %s needs: %s (kuis acl apply %s %s gives it)", o.option, what, w.role, o.flag))
		case o.got && !o.want:
			says = append(says, fmt.Sprintf("also has what %s needs: %s (%s was not given)", o.option, what, o.flag))
		}
	}
	return strings.Join(says, "; ")
}

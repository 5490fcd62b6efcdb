package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// command is one command of kuis, as the Go tool's base.Command: a leaf
// that runs, or a group that nests its subcommands (course holds fold, show
// and the rest, acl holds rules and apply), each group in a file of its
// own; kuis itself is the group at the top (root, in main.go).
type command struct {
	usageLine string // its name, then what follows it, as -h shows it: "fold COURSE (QUIZ... | -from-archive PATH)"
	short     string // what it does, in one line (kuis's own: a paragraph)
	long      string // more for its -h: what it prints, its exit status
	// flag declares the command's flags on the flag set of one run and
	// returns what runs with the arguments that are not flags: a leaf's
	// work, or what a group does before its subcommand (nil: nothing).
	flag     func(fs *flag.FlagSet) runFunc
	commands []*command // a group's subcommands, in the order -h lists them
}

// runFunc runs a command with the arguments that are not flags.
type runFunc func(ctx context.Context, c *cli, args []string) error

// name is the command's one word: its usage line's first.
func (cmd *command) name() string {
	name, _, _ := strings.Cut(cmd.usageLine, " ")
	return name
}

// exitError ends a run with code, after printing msg (when not empty) as
// one line on stderr.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// usagef is a usage error: exit status 2, one line naming what is wrong.
func usagef(format string, args ...any) error {
	return &exitError{code: 2, msg: fmt.Sprintf(format, args...)}
}

// errReported ends a run with status 1 when each failure already has its line.
var errReported = &exitError{code: 1}

// exec runs cmd, which path names ("kuis course fold"), with args, and is
// the one place where flags are parsed: a group's stand before the word
// naming its subcommand (kuis's own before the command), a leaf's anywhere
// among its arguments. -h prints cmd's help; a flag or a subcommand that is
// not there, or no subcommand, is a usage error. What the arguments that are
// not flags must be, each command checks itself.
func (c *cli) exec(ctx context.Context, path string, cmd *command, args []string) error {
	fs := flag.NewFlagSet(path, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var run runFunc
	if cmd.flag != nil {
		run = cmd.flag(fs)
	}
	pos, err := parseFlags(fs, args, cmd.commands == nil)
	switch {
	case errors.Is(err, flag.ErrHelp):
		c.help(path, cmd, fs)
		return nil
	case err != nil && cmd.flag == nil: // a group without flags: its first word names a subcommand
		pos = args
	case err != nil && cmd == root:
		return usagef("kuis: %v (kuis -h lists the flags)", err)
	case err != nil:
		return usagef("%s: %v (%[1]s -h)", path, err)
	}
	if run != nil {
		if err := run(ctx, c, pos); err != nil || cmd.commands == nil {
			return err
		}
	}
	switch i := slices.IndexFunc(cmd.commands, func(sub *command) bool { return len(pos) > 0 && sub.name() == pos[0] }); {
	case i >= 0:
		return c.exec(ctx, path+" "+pos[0], cmd.commands[i], pos[1:])
	case len(pos) == 0 && cmd == root:
		return usagef("kuis: no command (kuis -h lists them)")
	case len(pos) == 0:
		return usagef("%s: which one? (%[1]s -h lists them)", path)
	case cmd == root:
		return usagef("kuis: unknown command %q (kuis -h lists the commands)", pos[0])
	}
	return usagef("%s: unknown command %q (%[1]s -h lists them)", path, pos[0])
}

// parseFlags parses fs's flags among args and returns the other arguments
// in order: anywhere among them when anywhere is set, as a leaf's synopsis
// writes them after the quiz ("show QUIZ -top 5"), else up to the first;
// everything after "--" is an argument.
func parseFlags(fs *flag.FlagSet, args []string, anywhere bool) ([]string, error) {
	var pos, tail []string
	if i := slices.Index(args, "--"); anywhere && i >= 0 {
		args, tail = args[:i], args[i+1:]
	}
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 || !anywhere {
			return append(append(pos, args...), tail...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// help prints cmd's -h: kuis's own, the commands of a group, or a leaf's
// usage, details and flags.
func (c *cli) help(path string, cmd *command, fs *flag.FlagSet) {
	w := c.stdout
	fs.SetOutput(w)
	defer fs.SetOutput(io.Discard)
	words := strings.TrimPrefix(strings.TrimSuffix(path, cmd.name()), "kuis ") // the group's: "course "
	switch {
	case cmd == root:
		fmt.Fprintf(w, "%s\n\nUsage: %s\n\nCommands:\n", cmd.short, cmd.usageLine)
		c.listCommands("", cmd.commands)
		fmt.Fprint(w, "\nFlags (before the command):\n")
		fs.PrintDefaults()
		fmt.Fprintf(w, "\n%s\n", cmd.long)
	case cmd.commands != nil:
		fmt.Fprintf(w, "Usage of %s:\n", path)
		c.listCommands(words+cmd.name()+" ", cmd.commands)
	default:
		fmt.Fprintf(w, "Usage: kuis [flags] %s%s\n\n%s\n\n%s\n", words, cmd.usageLine, cmd.short, strings.TrimSpace(cmd.long))
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprint(w, "\nFlags:\n")
			fs.PrintDefaults()
		}
		fmt.Fprint(w, "\nkuis -h lists the flags before the command: the server, the user, the namespace.\n")
	}
}

// listCommands prints the synopsis and summary of each of cmds, and of
// each command of a group among them, after words, the names of their
// group.
func (c *cli) listCommands(words string, cmds []*command) {
	for _, cmd := range cmds {
		if cmd.commands != nil {
			c.listCommands(words+cmd.name()+" ", cmd.commands)
			continue
		}
		fmt.Fprintf(c.stdout, "  %s%s\n        %s\n", words, cmd.usageLine, cmd.short)
	}
}

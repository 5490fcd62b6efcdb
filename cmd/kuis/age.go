package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// age is the value of a retention flag (-older-than): how long ago a quiz
// finished or a course was last folded before kuis may purge it. Zero: the
// flag was not given.
type age time.Duration

// maxAgeDays bounds a whole number of days: 100 years, far within a
// time.Duration.
const maxAgeDays = 36500

// String prints the age as it was given back in Go's duration form.
func (a *age) String() string {
	if a == nil || *a == 0 {
		return ""
	}
	return time.Duration(*a).String()
}

// Set parses an age: a Go duration ("720h", "36h30m") or a whole number of
// days ("30d"; a day is 24 hours); it must be more than zero. A fraction of
// a day ("1.5d") is refused, pointing to hours: a retention policy reads in
// days or hours, not in both.
func (a *age) Set(s string) error {
	d, err := parseAge(s)
	if err != nil {
		return err
	}
	*a = age(d)
	return nil
}

// parseAge is Set's parse, returning the age as a time.Duration.
func parseAge(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseUint(days, 10, 32)
		switch {
		case err == nil && n == 0:
			return 0, errors.New("must be more than zero")
		case err == nil && n <= maxAgeDays:
			return time.Duration(n) * 24 * time.Hour, nil
		case err == nil:
			return 0, fmt.Errorf("%q: at most %dd", s, maxAgeDays)
		case strings.ContainsAny(days, ".,"):
			return 0, fmt.Errorf("%q: days are whole (%q), or give hours (%q)", s, "30d", "36h")
		}
		return 0, fmt.Errorf("%q: want a whole number of days (%q) or a Go duration (%q)", s, "30d", "720h")
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q: want a whole number of days (%q) or a Go duration (%q)", s, "30d", "720h")
	}
	if d <= 0 {
		return 0, errors.New("must be more than zero")
	}
	return d, nil
}

// ageFlag declares -older-than on fs.
func ageFlag(fs *flag.FlagSet, what string) *age {
	a := new(age)
	fs.Var(a, "older-than", "purge only "+what+" longer ago than `AGE`: a whole number of days (30d) or a Go duration (720h)")
	return a
}

// cut is the instant before which something is older than a: now minus a.
func (a age) cut(now time.Time) time.Time { return now.Add(-time.Duration(a)) }

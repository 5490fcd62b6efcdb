// Command kuis operates the quizzes of a kuis deployment on Redis without Go
// code: it lists, shows and watches quizzes, recaps them to CSV or JSON,
// audits and repairs them, archives finished quizzes to files and purges
// them, folds them into course boards (which it shows, recaps, audits,
// repairs and purges in turn), ranks teams by their members' points, and
// makes the Redis ACL users of the library's roles on every node.
//
// Install it with
//
//	go install github.com/kuisboard/kuis/cmd/kuis@latest
//
// and run
//
//	kuis [flags] <command> [arguments]
//
// kuis -h lists the flags and the commands, kuis <command> -h tells a
// command's details. It talks to Redis as the library recommends: through
// rueidis, a single client on a standalone server (-addr, default
// $REDIS_ADDR, else 127.0.0.1:6379), a cluster client with hash-tagged keys
// on Redis Cluster (-cluster, default $REDIS_CLUSTER_ADDRS), and no
// client-side cache, so that an ACL user made by ACLRules without the cache
// connects. A password is read from $REDIS_PASSWORD or -password-file, never
// from a flag's value.
//
// The result goes to stdout, nothing else: it pipes. With -json, a command
// prints one JSON document (an array, or show's and course show's object)
// in the library's field names, with quiz_id or course_id beside them.
// Errors go to stderr, one line each, naming what failed ("kuis: purge
// kuis-07: quiz is still running"), and so does the progress of long work
// (a line redrawn on a terminal, plain lines otherwise). The exit status is 0 when all went well,
// 1 when a check found something or some quizzes failed (the rest still
// done, each failure listed), 2 for a usage error.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

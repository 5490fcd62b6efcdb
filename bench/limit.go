package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"regexp"
	"strconv"
)

// limitArgs is the redis-benchmark command line for Redis's own limit on this
// machine: 50 connections, 16 commands pipelined per connection, ZINCRBY on
// 100,000 random members of key.
func limitArgs(addr, key string, requests int) ([]string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("address %q: %w", addr, err)
	}
	return []string{"-h", host, "-p", port, "-c", "50", "-P", "16", "-r", "100000",
		"-n", strconv.Itoa(requests), "-q", "ZINCRBY", key, "10", "__rand_int__"}, nil
}

// errNoBenchmark means redis-benchmark is not installed: limit_ops is then 0.
var errNoBenchmark = errors.New("redis-benchmark not found in PATH")

// runLimit runs redis-benchmark and returns its requests per second.
func runLimit(ctx context.Context, addr, key string, requests int) (float64, error) {
	bin, err := exec.LookPath("redis-benchmark")
	if err != nil {
		return 0, errNoBenchmark
	}
	args, err := limitArgs(addr, key, requests)
	if err != nil {
		return 0, err
	}
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("redis-benchmark: %w: %s", err, out.Bytes())
	}
	ops, err := parseRPS(out.Bytes())
	return round(ops, 0), err
}

// finalRPS matches the summary redis-benchmark -q prints when a test ends:
// "ZINCRBY k 10 __rand_int__: 270270.28 requests per second, p50=2.799 msec".
// The progress lines before it ("rps=236608.0 (overall: ...)") never say
// "requests per second".
var finalRPS = regexp.MustCompile(`([0-9]+(?:\.[0-9]+)?) requests per second`)

// parseRPS returns the last "N requests per second" of redis-benchmark's output.
func parseRPS(out []byte) (float64, error) {
	m := finalRPS.FindAllSubmatch(out, -1)
	if len(m) == 0 {
		return 0, fmt.Errorf("no \"requests per second\" in redis-benchmark output: %q", out)
	}
	return strconv.ParseFloat(string(m[len(m)-1][1]), 64)
}

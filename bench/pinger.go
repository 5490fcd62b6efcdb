package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/redis/rueidis"
)

// pingWhile runs work while another process (this program run with -pinger)
// PINGs the server every millisecond on a connection of its own, and returns
// work's duration, the worst PING round trip and the number of PINGs. A
// process of its own, so that the figure is the server's answer time and not
// this process's own scheduling while work fills its heap.
func pingWhile(addr string, work func() error) (took, worst time.Duration, pings int, err error) {
	cmd := exec.Command(os.Args[0], "-pinger", "-addr", addr)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 0, 0, 0, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, 0, 0, err
	}
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() || lines.Text() != "ready" {
		stdin.Close()
		return 0, 0, 0, fmt.Errorf("pinger did not start: %w", cmd.Wait())
	}
	start := time.Now()
	err = work()
	took = time.Since(start)
	stdin.Close()
	var us int64
	if !lines.Scan() {
		return took, 0, 0, fmt.Errorf("pinger gave no result: %w", cmd.Wait())
	}
	if _, serr := fmt.Sscan(lines.Text(), &us, &pings); serr != nil && err == nil {
		err = fmt.Errorf("pinger result %q: %w", lines.Text(), serr)
	}
	if werr := cmd.Wait(); werr != nil && err == nil {
		err = werr
	}
	return took, time.Duration(us) * time.Microsecond, pings, err
}

// runPinger is -pinger: PING addr every millisecond until stdin closes, then
// print the worst round trip in µs and the number of PINGs.
func runPinger(addr string) error {
	c, err := rueidis.NewClient(clientOption(addr))
	if err != nil {
		return err
	}
	defer c.Close()
	ctx := context.Background()
	if err := c.Do(ctx, c.B().Ping().Build()).Error(); err != nil {
		return err
	}
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(done)
	}()
	fmt.Println("ready")
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	var worst time.Duration
	pings := 0
	for {
		select {
		case <-done:
			fmt.Println(strings.TrimSpace(fmt.Sprint(worst.Microseconds(), " ", pings)))
			return nil
		case <-tick.C:
		}
		t0 := time.Now()
		if err := c.Do(ctx, c.B().Ping().Build()).Error(); err != nil {
			return err
		}
		worst = max(worst, time.Since(t0))
		pings++
	}
}

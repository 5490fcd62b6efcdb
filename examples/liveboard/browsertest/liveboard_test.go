// Package browsertest drives the liveboard example in headless Chromium: it
// lives in a module of its own so that the library's module does not require
// chromedp.
package browsertest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/chromedp/chromedp"
	"github.com/kuisboard/kuis"
	"github.com/redis/rueidis"
)

const quizID = "kuis-browser"

// browser returns the path of a Chromium or Chrome binary: $CHROME_PATH, or
// the first of the usual names on $PATH, or "" when there is none.
func browser() string {
	if p := os.Getenv("CHROME_PATH"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// freeAddr returns a loopback address no one listens on right now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// startServer builds the example and runs it against the miniredis at
// redisAddr, with no simulated class: the test records the answers. It
// returns the page's base URL once the server answers.
func startServer(t *testing.T, redisAddr string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "liveboard")
	build := exec.Command("go", "build", "-o", bin, "github.com/kuisboard/kuis/examples/liveboard")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	addr := freeAddr(t)
	cmd := exec.Command(bin, "-redis", redisAddr, "-addr", addr, "-quiz", quizID,
		"-title", "Kuis Sains Kelas 8", "-questions", "5", "-class", "0", "-every", "200ms")
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// SIGINT: the server shuts down gracefully, closing its event streams.
		_ = cmd.Process.Signal(syscall.SIGINT)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("liveboard exited with %v\n%s", err, logs.String())
			}
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("liveboard ignored SIGINT for 10 s\n%s", logs.String())
		}
	})
	base := "http://" + addr
	for deadline := time.Now().Add(30 * time.Second); ; {
		resp, err := http.Get(base + "/")
		if err == nil {
			_ = resp.Body.Close()
			return base
		}
		if time.Now().After(deadline) {
			t.Fatalf("liveboard did not answer within 30 s: %v\n%s", err, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitText waits until the element sel holds want, for at most d, and
// returns how long that took.
func waitText(ctx context.Context, sel, want string, d time.Duration) (time.Duration, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	js := fmt.Sprintf(`(document.querySelector(%q) || {}).textContent || ""`, sel)
	var got string
	for {
		var err error
		got, err = chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err == nil && strings.TrimSpace(got) == want {
			return time.Since(start), nil
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("%s shows %q after %v, want %q (last error: %w)", sel, got, d, want, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func TestLiveBoardInBrowser(t *testing.T) {
	path := browser()
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("no Chromium found; .ci/run installs the chromium package")
		}
		t.Skip("no Chromium found (set CHROME_PATH, or install the chromium package)")
	}
	mini := miniredis.RunT(t)
	client, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{mini.Addr()}, DisableCache: true, ForceSingleClient: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	base := startServer(t, mini.Addr())
	store, err := kuis.New(client)
	if err != nil {
		t.Fatal(err)
	}
	board, err := store.Board(quizID)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := store.Meta(quizID)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, a := range []struct {
		name string
		q    int
	}{{"Ali", 1}, {"Citra", 1}, {"Ali", 2}, {"Budi", 2}, {"Citra", 2}, {"Dewi", 3}} {
		if _, err := board.RecordAnswer(ctx, a.name, a.q); err != nil {
			t.Fatal(err)
		}
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path),
		chromedp.NoSandbox, chromedp.WindowSize(1000, 760))
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	page, cancelPage := chromedp.NewContext(alloc)
	defer cancelPage()
	page, cancelTimeout := context.WithTimeout(page, 2*time.Minute)
	defer cancelTimeout()

	if err := chromedp.Do(page, chromedp.Navigate(base+"/")); err != nil {
		t.Fatal(err)
	}
	for sel, want := range map[string]string{
		"#title":  "Kuis Sains Kelas 8",
		"#status": "running",
		`#board tr[data-participant="Ali"] .score`:   "20",
		`#board tr[data-participant="Citra"] .score`: "20",
		`#board tbody tr:first-child .name`:          "Citra", // equal scores: reverse order of names
		`#board tr[data-participant="Dewi"] .rank`:   "3",
	} {
		if _, err := waitText(page, sel, want, 10*time.Second); err != nil {
			t.Fatal(err)
		}
	}

	// An answer recorded through the library reaches the open page, no reload.
	if _, err := board.RecordAnswer(ctx, "Dewi", 4); err != nil {
		t.Fatal(err)
	}
	took, err := waitText(page, `#board tr[data-participant="Dewi"] .score`, "20", time.Second)
	if err != nil {
		t.Fatalf("within 1 s of RecordAnswer: %v", err)
	}
	t.Logf("the new score showed %v after RecordAnswer's reply", took.Round(time.Millisecond))
	if _, err := waitText(page, `#board tr[data-participant="Dewi"] .move`, "▲", time.Second); err != nil {
		t.Fatal(err) // Dewi went from third to first
	}
	png, err := chromedp.Run(page, chromedp.FullScreenshot(100)) // quality 100: PNG, not JPEG
	if err != nil {
		t.Fatal(err)
	}
	out := os.Getenv("LIVEBOARD_OUT")
	if out == "" {
		out = t.TempDir()
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(out, "liveboard.png")
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", shot)

	if err := meta.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(page, "#status", "finished", 5*time.Second); err != nil {
		t.Fatal(err)
	}

	// A student's page shows the student's own rank: Budi is fourth, behind three at 20.
	student, cancelStudent := chromedp.NewContext(page)
	defer cancelStudent()
	if err := chromedp.Do(student, chromedp.Navigate(base+"/me?name=Budi")); err != nil {
		t.Fatal(err)
	}
	for sel, want := range map[string]string{
		"#name":                              "Budi",
		"#rank":                              "4",
		"#score":                             "10",
		"#around tr.me .name":                "Budi",
		`#around tbody tr:first-child .name`: "Citra",
	} {
		if _, err := waitText(student, sel, want, 10*time.Second); err != nil {
			t.Error(err)
		}
	}
	if t.Failed() {
		return
	}
	if errors.Is(page.Err(), context.DeadlineExceeded) {
		t.Fatal("the browser session ran out of time")
	}
}

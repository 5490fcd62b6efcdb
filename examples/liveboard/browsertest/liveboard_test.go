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
	"slices"
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

// classID is the class the quiz is created for: the projector lists its
// students who are not on the board.
const classID = "8a"

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
// returns the page's base URL once the server answers. env is added to the
// server's environment, and args to its flags.
func startServer(t *testing.T, redisAddr string, env []string, args ...string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "liveboard")
	build := exec.Command("go", "build", "-o", bin, "github.com/kuisboard/kuis/examples/liveboard")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	addr := freeAddr(t)
	cmd := exec.Command(bin, append([]string{"-redis", redisAddr, "-addr", addr, "-quiz", quizID,
		"-title", "Kuis Sains Kelas 8", "-questions", "5", "-class", "0", "-every", "200ms"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
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

// deadline bounds every wait on the page: generous, for a loaded 2-core
// machine; a passing run waits far less.
const deadline = 30 * time.Second

// textOf is the JavaScript expression of the trimmed text of the element
// sel, "" when there is none.
func textOf(sel string) string {
	return fmt.Sprintf(`((document.querySelector(%q) || {}).textContent || "").trim()`, sel)
}

// waitFor polls the page until the JavaScript expression js, a string,
// yields want, and returns how long that took. The page's DOM is the only
// signal waited on.
func waitFor(ctx context.Context, js, want string) (time.Duration, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	var got string
	for {
		var err error
		got, err = chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err == nil && got == want {
			return time.Since(start), nil
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("%s is %q after %v, want %q (last error: %w)", js, got, deadline, want, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// waitTexts waits until each selector's element shows its text.
func waitTexts(t *testing.T, ctx context.Context, want map[string]string) {
	t.Helper()
	for sel, text := range want {
		if _, err := waitFor(ctx, textOf(sel), text); err != nil {
			t.Fatal(err)
		}
	}
}

// visible waits until the element of that id is visible.
func visible(t *testing.T, ctx context.Context, id string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.ID(id))); err != nil {
		t.Fatalf("#%s not visible: %v", id, err)
	}
}

// screenshots is where the test keeps its screenshots: $LIVEBOARD_OUT, or a
// new directory of the system's temporary one, kept after the test.
func screenshots(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("LIVEBOARD_OUT")
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "liveboard-screenshots-"); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// screenshot saves the whole page as dir/name and logs its path.
func screenshot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // quality 100: PNG, not JPEG
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// open opens url in a new tab of the browser of ctx.
func open(t *testing.T, ctx context.Context, url string) context.Context {
	t.Helper()
	tab, cancel := chromedp.NewContext(ctx)
	t.Cleanup(cancel)
	if err := chromedp.Do(tab, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	return tab
}

// moved is the JavaScript expression of every row's arrow, as JSON.
const moved = `JSON.stringify(Object.fromEntries([...document.querySelectorAll("#board tbody tr")]
	.map((tr) => [tr.dataset.participant, tr.querySelector(".move").textContent])))`

// watchDewi records, in the page, as it draws: every row's arrow (moved)
// when Dewi's arrow appears, and the times (performance.now) it appears and
// goes, in window.dewi.marks, .up and .gone. The test then reads what the
// page drew, however late its polls come on a loaded machine.
const watchDewi = `window.dewi = {};
new MutationObserver(() => {
	const m = (document.querySelector('#board tr[data-participant="Dewi"] .move') || {}).textContent;
	if (m === "▲" && !dewi.up) { dewi.up = performance.now(); dewi.marks = ` + moved + `; }
	if (m === "" && dewi.up && !dewi.gone) dewi.gone = performance.now();
}).observe(document.querySelector("#board tbody"), { childList: true });
"watching"`

func TestLiveBoardInBrowser(t *testing.T) {
	path := browser()
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("no Chromium found; .ci/run installs the chromium package")
		}
		t.Skip("no Chromium found (set CHROME_PATH, or install the chromium package)")
	}
	mini := miniredis.RunT(t)
	// The server's clock is the test's: each answer gets a millisecond of its
	// own, so equal scores stand in the order the test reached them.
	clock := time.Now().Truncate(time.Millisecond)
	mini.SetTime(clock)
	tick := func() {
		clock = clock.Add(time.Millisecond)
		mini.SetTime(clock)
	}
	client, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{mini.Addr()}, DisableCache: true, ForceSingleClient: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	base := startServer(t, mini.Addr(), nil, "-for-class", classID)
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
	class, err := store.Class(classID)
	if err != nil {
		t.Fatal(err)
	}
	if err := class.Enroll(ctx, kuis.Student{ID: "s-01", Name: "Ali"}, kuis.Student{ID: "s-02", Name: "Budi"},
		kuis.Student{ID: "s-03", Name: "Nanda"}, kuis.Student{ID: "s-04", Name: "Putu"}); err != nil {
		t.Fatal(err)
	}
	answer := func(name string, q int) {
		t.Helper()
		if _, err := board.RecordAnswer(ctx, name, q); err != nil {
			t.Fatal(err)
		}
		tick()
	}
	// Ali and Citra on 20, Ali first; Budi and Dewi on 10, Budi first.
	for _, a := range []struct {
		name string
		q    int
	}{{"Ali", 1}, {"Citra", 1}, {"Ali", 2}, {"Budi", 2}, {"Citra", 2}, {"Dewi", 3}} {
		answer(a.name, a.q)
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path),
		chromedp.NoSandbox, chromedp.WindowSize(1000, 760))
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	browserCtx, cancelBrowser := chromedp.NewContext(alloc)
	defer cancelBrowser()
	browserCtx, cancelTimeout := context.WithTimeout(browserCtx, 3*time.Minute)
	defer cancelTimeout()
	shots := screenshots(t)

	// The projector page: progress, the address students open, the board
	// with equal scores in the order reached, and no arrows on the first view.
	page := open(t, browserCtx, base+"/")
	waitTexts(t, page, map[string]string{
		"#title":                            "Kuis Sains Kelas 8",
		"#status":                           "running",
		"#questions":                        "5",
		"#participants":                     "4",
		"#answers":                          "6",
		"#join":                             base + "/me?name=",
		`#board tbody tr:first-child .name`: "Ali", // by name, Citra would come first
		`#board tr[data-participant="Dewi"] .rank`: "3",
		"#absent": "NandaPutu", // enrolled in the quiz's class, not on the board
	})
	visible(t, page, "absentees")
	if _, err := waitFor(page, `String(document.querySelector("#hiddennote").hidden && document.querySelector("#joinedbox").hidden)`, "true"); err != nil {
		t.Fatal("a shown board's page shows the hidden board's note: ", err)
	}
	if _, err := waitFor(page, moved, `{"Ali":"","Citra":"","Budi":"","Dewi":""}`); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(page, chromedp.Evaluate[string](`window.notReloaded = "yes"`)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(page, chromedp.Evaluate[string](watchDewi)); err != nil {
		t.Fatal(err)
	}

	// Dewi reaches 20, last of three: she goes up to the shared first place,
	// Budi down to fourth; Ali's and Citra's rank and score did not change,
	// so they show no arrow. The progress counts the answer, no reload.
	answer("Dewi", 4)
	took, err := waitFor(page, `String(Boolean(dewi.up))`, "true")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Dewi's arrow showed %v after RecordAnswer's reply", took.Round(time.Millisecond))
	waitTexts(t, page, map[string]string{"#answers": "7", `#board tr[data-participant="Dewi"] .score`: "20"})
	screenshot(t, page, shots, "liveboard.png")
	if _, err := waitFor(page, `dewi.marks`, `{"Ali":"","Citra":"","Dewi":"▲","Budi":"▼"}`); err != nil {
		t.Fatal(err)
	}
	// The arrow stays up for about 3 s, measured by the page's own clock.
	if _, err := waitFor(page, `String(Boolean(dewi.gone))`, "true"); err != nil {
		t.Fatal(err)
	}
	held, err := chromedp.Run(page, chromedp.Evaluate[float64](`dewi.gone - dewi.up`))
	if err != nil {
		t.Fatal(err)
	}
	if held < 2500 || held > 10000 {
		t.Errorf("Dewi's arrow stayed %.0f ms, want about 3000", held)
	}
	t.Logf("Dewi's arrow stayed %.0f ms", held)

	// Eight more students: twelve on the board, the top 10 shown.
	var more []kuis.AnswerInput
	for _, name := range []string{"Eka", "Fajar", "Gilang", "Hana", "Indah", "Joko", "Lia", "Made"} {
		more = append(more, kuis.AnswerInput{Participant: name, Question: 1})
	}
	if _, err := board.RecordAnswers(ctx, more); err != nil {
		t.Fatal(err)
	}
	tick()
	waitTexts(t, page, map[string]string{"#participants": "12", "#answers": "15"})
	if _, err := waitFor(page, `String(document.querySelectorAll("#board tbody tr").length)`, "10"); err != nil {
		t.Fatal(err)
	}
	if _, err := waitFor(page, `String(window.notReloaded)`, "yes"); err != nil {
		t.Fatal("the page was reloaded: ", err)
	}

	// A student's own page: Budi shares fourth place with the eight newcomers.
	student := open(t, browserCtx, base+"/me?name=Budi")
	waitTexts(t, student, map[string]string{
		"#title":    "Kuis Sains Kelas 8",
		"#name":     "Budi",
		"#status":   "running",
		"#rank":     "rank 4 of 12",
		"#score":    "10 points",
		"#answered": "2",
	})

	// Nanda opens her page before answering anything: she joins with 0
	// points, and the projector no longer lists her as absent.
	nanda := open(t, browserCtx, base+"/me?name=Nanda")
	waitTexts(t, nanda, map[string]string{"#name": "Nanda", "#score": "0 points", "#rank": "rank 13 of 13", "#answered": "none yet"})
	waitTexts(t, page, map[string]string{"#participants": "13", "#absent": "Putu"})
	screenshot(t, page, shots, "absent.png")

	// The end: the podium of the top three, and the whole board below it.
	if err := meta.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	waitTexts(t, page, map[string]string{
		"#status":                       "finished",
		"#podium li:nth-child(1) .name": "Ali",
		"#podium li:nth-child(2) .name": "Citra",
		"#podium li:nth-child(3) .name": "Dewi",
	})
	visible(t, page, "podium")
	if _, err := waitFor(page, `String(document.querySelectorAll("#board tbody tr").length)`, "13"); err != nil {
		t.Fatal(err)
	}
	screenshot(t, page, shots, "podium.png")
	waitTexts(t, student, map[string]string{"#status": "finished"})
	screenshot(t, student, shots, "student.png")

	// A name that cannot be on the board is told so, not left "connecting".
	for _, tc := range []struct{ query, want, shot string }{
		{"", "Add your name to this page's address: " + base + "/me?name=YourName", "student-noname.png"},
		{"%E2%80%AEilA", "This name cannot be shown on the board: use 1 to 64 letters, digits or symbols, with nothing hidden.", ""},
	} {
		tab := open(t, browserCtx, base+"/me?name="+tc.query)
		waitTexts(t, tab, map[string]string{"#problem": tc.want, "#status": "not joined"})
		visible(t, tab, "problem")
		if tc.shot != "" {
			screenshot(t, tab, shots, tc.shot)
		}
	}
	if errors.Is(browserCtx.Err(), context.DeadlineExceeded) {
		t.Fatal("the browser session ran out of time")
	}
}

// TestVisibilityInBrowser: the projector and a student's page follow the
// teacher's visibility without a reload, with pseudonyms (-pseudonyms, the
// secret from the environment): sembunyi shows the progress and who joined,
// as aliases in alphabetical order, and no board, and the student their own
// score and alias but no rank; tampil shows the board of aliases and the
// student's rank; akhir hides the board again until the finish, then shows
// the podium and the whole board, every name an alias.
func TestVisibilityInBrowser(t *testing.T) {
	path := browser()
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("no Chromium found; .ci/run installs the chromium package")
		}
		t.Skip("no Chromium found (set CHROME_PATH, or install the chromium package)")
	}
	mini := miniredis.RunT(t)
	clock := time.Now().Truncate(time.Millisecond)
	mini.SetTime(clock)
	client, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{mini.Addr()}, DisableCache: true, ForceSingleClient: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	secret := "kelas-8a-rahasia-2026"
	base := startServer(t, mini.Addr(), []string{"KUIS_PSEUDONYM_SECRET=" + secret}, "-pseudonyms", "-visibility", "sembunyi")
	alias := func(name string) string { return kuis.Pseudonym([]byte(secret), name) }
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
	// Ali 20 first, Budi and Citra 10: in alphabetical order of names the
	// aliases would be Ali, Budi, Citra; the page sorts the aliases.
	for _, a := range []struct {
		name string
		q    int
	}{{"Ali", 1}, {"Citra", 1}, {"Ali", 2}, {"Budi", 2}} {
		if _, err := board.RecordAnswer(ctx, a.name, a.q); err != nil {
			t.Fatal(err)
		}
		clock = clock.Add(time.Millisecond)
		mini.SetTime(clock)
	}
	joined := []string{alias("Ali"), alias("Budi"), alias("Citra")}
	slices.Sort(joined)

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path),
		chromedp.NoSandbox, chromedp.WindowSize(1000, 760))
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	browserCtx, cancelBrowser := chromedp.NewContext(alloc)
	defer cancelBrowser()
	browserCtx, cancelTimeout := context.WithTimeout(browserCtx, 3*time.Minute)
	defer cancelTimeout()
	shots := screenshots(t)
	set := func(v kuis.Visibility) {
		t.Helper()
		if err := meta.SetVisibility(ctx, v); err != nil {
			t.Fatal(err)
		}
	}
	hidden := func(page context.Context, id, want string) {
		t.Helper()
		if _, err := waitFor(page, fmt.Sprintf(`String(document.getElementById(%q).hidden)`, id), want); err != nil {
			t.Fatal(err)
		}
	}
	// The page never shows a name the class typed.
	noNames := `String(["Ali", "Budi", "Citra"].some((n) => document.body.innerText.split(/\s+/).includes(n)))`

	// sembunyi: progress and who joined, no board.
	page := open(t, browserCtx, base+"/")
	waitTexts(t, page, map[string]string{
		"#hiddennote":   "The teacher hides the board",
		"#participants": "3",
		"#answers":      "4",
		"#joined":       strings.Join(joined, ""),
	})
	hidden(page, "board", "true")
	if _, err := waitFor(page, noNames, "false"); err != nil {
		t.Fatal(err)
	}
	screenshot(t, page, shots, "hidden.png")
	if _, err := chromedp.Run(page, chromedp.Evaluate[string](`window.notReloaded = "yes"`)); err != nil {
		t.Fatal(err)
	}
	student := open(t, browserCtx, base+"/me?name=Budi")
	waitTexts(t, student, map[string]string{
		"#name":      "Budi",
		"#aliasname": alias("Budi"),
		"#score":     "10 points",
		"#rank":      "ranks are hidden",
	})
	visible(t, student, "alias")
	screenshot(t, student, shots, "student-alias.png")

	// tampil: the board, of aliases, without a reload.
	set(kuis.VisibilityShown)
	waitTexts(t, page, map[string]string{
		`#board tbody tr:first-child .name`:  alias("Ali"),
		`#board tbody tr:nth-child(2) .name`: alias("Citra"), // 10 before Budi
		`#board tbody tr:nth-child(3) .name`: alias("Budi"),
	})
	hidden(page, "hiddennote", "true")
	hidden(page, "joinedbox", "true")
	waitTexts(t, student, map[string]string{"#rank": "rank 2 of 3"})
	screenshot(t, page, shots, "pseudonyms.png")

	// akhir: hidden again while the quiz runs, then the board at the finish.
	set(kuis.VisibilityAtEnd)
	waitTexts(t, page, map[string]string{"#hiddennote": "The board is shown when the quiz is finished"})
	hidden(page, "board", "true")
	waitTexts(t, student, map[string]string{"#rank": "ranks are hidden"})
	if err := meta.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	waitTexts(t, page, map[string]string{
		"#status":                       "finished",
		"#podium li:nth-child(1) .name": alias("Ali"),
		"#podium li:nth-child(2) .name": alias("Citra"),
		"#podium li:nth-child(3) .name": alias("Budi"),
	})
	hidden(page, "hiddennote", "true")
	visible(t, page, "board")
	if _, err := waitFor(page, `String(document.querySelectorAll("#board tbody tr").length)`, "3"); err != nil {
		t.Fatal(err)
	}
	if _, err := waitFor(page, noNames, "false"); err != nil {
		t.Fatal(err)
	}
	if _, err := waitFor(page, `String(window.notReloaded)`, "yes"); err != nil {
		t.Fatal("the page was reloaded: ", err)
	}
	waitTexts(t, student, map[string]string{"#status": "finished", "#rank": "rank 2 of 3"})
	screenshot(t, page, shots, "podium-pseudonyms.png")
	if errors.Is(browserCtx.Err(), context.DeadlineExceeded) {
		t.Fatal("the browser session ran out of time")
	}
}

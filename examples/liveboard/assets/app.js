// The pages' only script: it renders what the server streams (Server-Sent
// Events) and builds every element with append, never innerHTML, so a
// participant's name is always shown as text.
"use strict";

const $ = (id) => document.getElementById(id);

// el makes an element of class cls holding content: elements, or text.
function el(tag, cls, ...content) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  e.append(...content.map((c) => (c instanceof Node ? c : String(c))));
  return e;
}

// setStatus shows text in the status pill, coloured by state: "finished",
// "problem" or "" (running).
function setStatus(text, state) {
  $("status").textContent = text;
  $("status").className = "status " + (state || "");
}

// follow renders each event named name of the stream at url, until one says
// finished. A stream the server refused before it began (400: a bad name,
// 404: no such quiz) is closed by the browser, not retried: fetching url
// again gets the reason, for refused.
function follow(url, name, render, refused) {
  const es = new EventSource(url);
  es.addEventListener(name, (e) => {
    const v = JSON.parse(e.data);
    render(v);
    if (v.finished) es.close();
  });
  es.addEventListener("failure", (e) => { es.close(); setStatus(JSON.parse(e.data).error, "problem"); });
  es.onerror = async () => {
    if (es.readyState !== EventSource.CLOSED) { setStatus("reconnecting"); return; }
    const resp = await fetch(url);
    if (resp.ok) { resp.body.cancel(); setStatus("reload the page", "problem"); return; }
    refused(resp.status, await resp.text());
  };
}

// An arrow marks a change of a row's competition rank, not of its place in
// the table, and stays up for HOLD ms: a row whose rank did not change in
// that time shows none, however the rows around it move.
const HOLD = 3000;
const arrows = { up: "▲", down: "▼", new: "●" };

// moves remembers each participant's last competition rank and the arrow
// it earned. marks(rows, now) returns each row's arrow ("" for none) and
// when the first of those arrows is due to go (Infinity when none shows).
function moves() {
  const seen = new Map(); // participant → {rank, move, until}
  return (rows, now) => {
    const first = seen.size === 0;
    let due = Infinity;
    const move = rows.map((r) => {
      let s = seen.get(r.participant);
      const rank = r.competition_rank;
      if (!s || s.rank !== rank) {
        s = { rank, move: !s ? (first ? "" : "new") : rank < s.rank ? "up" : "down", until: now + HOLD };
        seen.set(r.participant, s);
      }
      if (!s.move || now >= s.until) return "";
      due = Math.min(due, s.until);
      return s.move;
    });
    return { move, due };
  };
}

// liveBoard follows /board/stream: progress, the join address, the top 10,
// and once finished the podium and the whole board. While the teacher hides
// the board (v.hidden) it shows a note and who joined instead.
function liveBoard() {
  const marks = moves();
  let expire; // draws the latest view again when an arrow is due to go
  const draw = (v) => {
    clearTimeout(expire);
    document.title = v.title;
    $("title").textContent = v.title;
    setStatus(v.finished ? "finished" : "running", v.finished ? "finished" : "");
    for (const k of ["questions", "participants", "answers"]) $(k).textContent = v[k];
    $("join").textContent = v.join;
    const now = Date.now();
    const { move, due } = v.finished || v.hidden ? { move: [], due: Infinity } : marks(v.rows, now);
    $("hiddennote").hidden = !v.hidden;
    $("hiddennote").textContent = v.visibility === "akhir"
      ? "The board is shown when the quiz is finished" : "The teacher hides the board";
    $("board").hidden = v.hidden;
    $("joinedbox").hidden = !v.hidden;
    $("joined").replaceChildren(...(v.joined || []).map((n) => el("li", "", n)));
    $("board").tBodies[0].replaceChildren(...v.rows.map((r, i) => {
      const tr = el("tr", "", el("td", "rank", r.competition_rank), el("td", "move " + (move[i] || "same"), arrows[move[i]] || ""),
        el("td", "name", r.participant), el("td", "score", r.score));
      tr.dataset.participant = r.participant;
      return tr;
    }));
    $("podium").hidden = !v.finished || v.hidden;
    $("podium").replaceChildren(...(v.finished ? v.rows.slice(0, 3) : []).map((r) =>
      el("li", "", el("span", "rank", r.competition_rank), el("span", "name", r.participant), el("span", "score", r.score))));
    // The class's students not on the board, when the quiz names a class.
    $("absentees").hidden = !v.absent;
    $("absent").replaceChildren(...(!v.absent ? [] : v.absent.length === 0
      ? [el("li", "everyone", "everyone is here")] : v.absent.map((n) => el("li", "", n))));
    if (due !== Infinity) expire = setTimeout(() => draw(v), due - now);
  };
  follow("/board/stream", "board", draw, (status, text) => setStatus(text, "problem"));
}

// studentView joins the quiz as the name in the page's address (POST /join:
// on the board with 0 points, so the projector shows them before the first
// question), then follows /me/stream for it.
async function studentView() {
  const name = new URLSearchParams(location.search).get("name") || "";
  const query = "?name=" + encodeURIComponent(name);
  const refused = (status, text) => {
    setStatus("not joined", "problem");
    $("title").textContent = "Join the quiz";
    $("mine").hidden = true;
    $("problem").hidden = false;
    $("problem").textContent = status !== 400 ? text : name.trim() === ""
      ? `Add your name to this page's address: ${location.origin}/me?name=YourName`
      : "This name cannot be shown on the board: use 1 to 64 letters, digits or symbols, with nothing hidden.";
  };
  try {
    const resp = await fetch("/join" + query, { method: "POST" });
    // 409: the quiz finished without them; their page still shows it.
    if (!resp.ok && resp.status !== 409) { refused(resp.status, await resp.text()); return; }
  } catch (e) {
    setStatus("reload the page", "problem");
    return;
  }
  follow("/me/stream" + query, "me", (v) => {
    document.title = v.title;
    $("title").textContent = v.title;
    $("name").textContent = v.name;
    setStatus(v.finished ? "finished" : "running", v.finished ? "finished" : "");
    $("alias").hidden = !v.alias;
    $("aliasname").textContent = v.alias || "";
    $("rank").textContent = v.hidden ? "ranks are hidden" : v.rank ? `rank ${v.rank} of ${v.of}` : "not on the board yet";
    $("score").textContent = `${v.score} points`;
    $("answered").textContent = v.answered.length ? v.answered.join(", ") : "none yet";
  }, refused);
}

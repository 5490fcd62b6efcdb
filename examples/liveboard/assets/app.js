// The pages' only script: it renders what the server streams (Server-Sent
// Events) and builds every element with textContent, never innerHTML, so a
// participant's name is always shown as text.
"use strict";

function cell(tr, text, cls) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  tr.appendChild(td);
}

const marks = { up: "▲", down: "▼", new: "●" };

function setStatus(finished, text) {
  const s = document.getElementById("status");
  s.textContent = text;
  s.classList.toggle("finished", finished);
}

// liveBoard follows /board/stream: title, status and the top 10.
function liveBoard() {
  const es = new EventSource("/board/stream");
  es.addEventListener("board", (e) => {
    const v = JSON.parse(e.data);
    document.getElementById("title").textContent = v.title;
    document.title = v.title;
    setStatus(v.finished, v.finished ? "finished" : "running");
    const body = document.querySelector("#board tbody");
    body.replaceChildren();
    for (const r of v.top) {
      const tr = document.createElement("tr");
      tr.dataset.participant = r.participant;
      cell(tr, String(r.competition_rank), "rank");
      cell(tr, marks[r.move] || "", "move " + (r.move || "same"));
      cell(tr, r.participant, "name");
      cell(tr, String(r.score), "score");
      body.appendChild(tr);
    }
    if (v.finished) es.close();
  });
  es.addEventListener("failure", (e) => { setStatus(false, JSON.parse(e.data).error); es.close(); });
  es.onerror = () => { if (es.readyState !== EventSource.CLOSED) setStatus(false, "reconnecting"); };
}

// studentView follows /me/stream for the name in the page's query.
function studentView() {
  const name = new URLSearchParams(location.search).get("name") || "";
  document.getElementById("name").textContent = name;
  const es = new EventSource("/me/stream?name=" + encodeURIComponent(name));
  es.addEventListener("me", (e) => {
    const v = JSON.parse(e.data);
    setStatus(v.finished, v.finished ? "finished" : "running");
    document.getElementById("rank").textContent = v.on_board ? String(v.me.competition_rank) : "–";
    document.getElementById("score").textContent = v.on_board ? String(v.me.score) : "not on the board yet";
    const body = document.querySelector("#around tbody");
    body.replaceChildren();
    for (const r of v.around || []) {
      const tr = document.createElement("tr");
      tr.dataset.participant = r.participant;
      if (r.participant === v.name) tr.className = "me";
      cell(tr, String(r.competition_rank), "rank");
      cell(tr, r.participant, "name");
      cell(tr, String(r.score), "score");
      body.appendChild(tr);
    }
    if (v.finished) es.close();
  });
  es.addEventListener("failure", (e) => { setStatus(false, JSON.parse(e.data).error); es.close(); });
}

// c4book explorer: the board, the line, every move's score, games against the AI and
// between two players on one board, with the mouse or the keys.
// Plain JS, no build step; everything it knows comes from the server's JSON API.
"use strict";

const CELL = 100;
let WIDTH = 7, HEIGHT = 6;  // the book's board: set from /api/info before the first draw
const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);

const state = {
  line: "",       // the moves of the line shown, maybe past the cursor
  cursor: 0,      // how many of them are on the board
  info: null,     // /api/info
  data: null,     // /api/position of the position on the board
  game: null,     // {human: parity of the plies the human plays, level, last}
  two: false,     // two-player mode: both sides played here, no AI (?players=2)
  hints: false,   // the scores stay shown in a game against the AI (kept in localStorage)
  column: 1,      // the keys' column cursor
  seq: 0,         // the latest position asked for: older answers are dropped
  cache: new Map(),
  notice: "",     // shown once with the next position: what was wrong with the URL
  review: null,   // /api/review of the line (or of a line it came from)
  reviewSeq: 0,   // the latest review asked for
};

const moves = () => state.line.slice(0, state.cursor);
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

async function getJSON(url, tries = 4) {
  const response = await fetch(url);
  if (response.status === 503 && tries > 1) {  // the server is busy: it says so at once
    await sleep(1000);
    return getJSON(url, tries - 1);
  }
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

// -- the board ------------------------------------------------------------------------------

function buildBoard() {
  const svg = $("board");
  svg.setAttribute("viewBox", `0 0 ${WIDTH * CELL} ${HEIGHT * CELL}`);
  const panel = $("board-panel");
  panel.style.setProperty("--width", WIDTH);
  if (WIDTH * 6 < 7 * HEIGHT) {  // a board narrower than 7x6 is no taller than 7x6 would be
    panel.style.setProperty("--board-width", `${(30 * 6 * WIDTH) / (7 * HEIGHT)}rem`);
  }
  const frame = document.createElementNS(SVG, "rect");
  frame.setAttribute("class", "frame");
  frame.setAttribute("width", WIDTH * CELL);
  frame.setAttribute("height", HEIGHT * CELL);
  frame.setAttribute("rx", 18);
  svg.appendChild(frame);
  for (let col = 0; col < WIDTH; col++) {
    for (let row = 0; row < HEIGHT; row++) {
      const hole = document.createElementNS(SVG, "circle");
      hole.setAttribute("cx", col * CELL + CELL / 2);
      hole.setAttribute("cy", (HEIGHT - 1 - row) * CELL + CELL / 2);
      hole.setAttribute("r", CELL * 0.4);
      hole.id = `cell-${col + 1}-${row + 1}`;
      svg.appendChild(hole);
    }
  }
  for (let col = 1; col <= WIDTH; col++) {  // on top: one target per column
    const target = document.createElementNS(SVG, "rect");
    target.setAttribute("class", "col");
    target.setAttribute("x", (col - 1) * CELL);
    target.setAttribute("width", CELL);
    target.setAttribute("height", HEIGHT * CELL);
    target.dataset.col = col;
    target.addEventListener("click", () => playColumn(col));
    svg.appendChild(target);
  }
  // Above the board, one button a column (a toolbar: Tab reaches the cursor's column, the
  // arrows move along): its score, and a click, Enter or Space plays it.
  const scores = $("scores");
  state.column = Math.ceil(WIDTH / 2);
  for (let col = 1; col <= WIDTH; col++) {
    const label = document.createElement("button");
    label.type = "button";
    label.className = "score";
    label.dataset.col = col;
    label.tabIndex = col === state.column ? 0 : -1;
    label.addEventListener("click", () => playColumn(col));
    label.addEventListener("focus", () => {
      pointAt(col);  // lit on the board when the keys brought the focus (not a click)
      target(col).classList.toggle("cursor", label.matches(":focus-visible"));
    });
    label.addEventListener("blur", () => target(col).classList.remove("cursor"));
    scores.appendChild(label);
    $("numbers").appendChild(text("span", col));
  }
}

const target = (col) => $("board").querySelector(`rect.col[data-col="${col}"]`);
const columnButton = (col) => $("scores").children[col - 1];

function pointAt(col) {
  // The column cursor: its button is the toolbar's one stop for Tab.
  state.column = col;
  for (const label of $("scores").children) {
    label.tabIndex = Number(label.dataset.col) === col ? 0 : -1;
  }
}

function moveCursor(step) {
  const col = Math.max(1, Math.min(WIDTH, state.column + step));
  pointAt(col);
  columnButton(col).focus();  // the focus is the cursor: visible, and Enter or Space plays
}

function renderBoard() {
  const filled = Array(WIDTH).fill(0);
  const stones = new Map();
  const shown = moves();
  [...shown].forEach((char, ply) => {
    const col = Number(char);
    filled[col - 1] += 1;
    stones.set(`cell-${col}-${filled[col - 1]}`, ply);
  });
  for (const hole of $("board").querySelectorAll("circle")) {
    const ply = stones.get(hole.id);
    hole.setAttribute("class", ply === undefined ? "" :
      (ply % 2 === 0 ? "x" : "o") + (ply === shown.length - 1 ? " last" : ""));
  }
  $("back").disabled = $("first").disabled = state.cursor === 0;
  $("forward").disabled = $("last").disabled = state.cursor === state.line.length;
}

function renderLine() {
  const list = $("line");
  list.replaceChildren();
  [...state.line].forEach((col, index) => {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.textContent = `${index + 1}. ${col}`;
    button.title = `go to the position after move ${index + 1}`;
    markMove(button, reviewed(index));
    if (index === state.cursor - 1) button.classList.add("current");
    if (index >= state.cursor) button.classList.add("ahead");
    button.addEventListener("click", () => go(index + 1));
    item.appendChild(button);
    list.appendChild(item);
  });
  renderReview();
}

// -- the review of the line ----------------------------------------------------------------

// Each move of the line is marked from exact scores (bookgen/play/review.py): "?!" an
// inaccuracy, "?" a mistake, "??" a blunder, nothing for a best move; the words say it too.
const MARK_WORDS = { best: "best", inaccuracy: "an inaccuracy", mistake: "a mistake",
                     blunder: "a blunder" };
const result = (score) => `${score > 0 ? "a win" : score < 0 ? "a loss" : "a draw"} (${signed(score)})`;

async function loadReview() {
  const line = state.line;
  if (state.review && state.review.moves === line && state.review.complete) return;
  const seq = ++state.reviewSeq;
  let review;
  try {
    review = await getJSON(`/api/review?pos=${line}`);
  } catch (error) {
    return;  // the marks are extras: the position's own answer shows what went wrong
  }
  if (seq !== state.reviewSeq) return;
  state.review = review;
  renderLine();
  document.body.dataset.reviewed = line;
}

function reviewed(index) {
  // Move index + 1's review, if the review is of the line's moves up to it.
  const review = state.review;
  if (!review || review.moves.slice(0, index + 1) !== state.line.slice(0, index + 1)) return null;
  return review.played[index] ?? null;
}

function markMove(button, move) {
  if (!move) return;
  button.dataset.mark = move.mark;
  if (move.symbol) {
    const symbol = text("span", move.symbol);
    symbol.className = "mark";
    button.append(symbol);
  }
  const words = `move ${move.number}, ${move.column}: ${MARK_WORDS[move.mark]}`;
  button.setAttribute("aria-label", words);
  button.title = `${words}; go to the position after it`;
}

function renderReview() {
  // The move on the board: its mark, its result, and the better move when there was one.
  const note = $("review");
  const move = state.cursor > 0 ? reviewed(state.cursor - 1) : null;
  if (!move) {
    note.replaceChildren();
    return;
  }
  const who = move.player === "first" ? "red" : "yellow";
  let words = `Move ${move.number}, ${who} played ${move.column}: ${MARK_WORDS[move.mark]}` +
              `${move.symbol ? ` (${move.symbol})` : ""}, ${result(move.score)}.`;
  if (move.mark !== "best") {
    const columns = move.best_moves.join(" or ");
    words += ` Better: ${columns}, ${result(move.score_before)}.`;
  }
  const line = text("span", words);
  line.id = "review-move";
  const review = state.review;
  const players = ["first", "second"].map((player) => {
    const s = review.summary[player];
    const name = player === "first" ? "Red" : "Yellow";
    const marks = ["inaccuracy", "mistake", "blunder"].filter((mark) => s[mark])
      .map((mark) => `${s[mark]} ${mark === "inaccuracy" && s[mark] > 1 ? "inaccuracies" :
                                    mark + (s[mark] > 1 ? "s" : "")}`);
    return s.moves ? `${name} ${s.accuracy}% of moves best` +
                     (marks.length ? ` (${marks.join(", ")})` : "") : "";
  }).filter(Boolean);
  const partial = review.complete ? "" : ` (the first ${review.played.length} moves, in time)`;
  const summary = text("span", ` Accuracy${partial}: ${players.join("; ")}.`);
  summary.id = "review-summary";
  note.replaceChildren(line, summary);
}

// -- scores -------------------------------------------------------------------------------

// Each score's colour comes with the page's info (solver/palette.py): blue wins and
// vermillion losses, deeper the quicker, grey draws; safe for colour-blind eyes.
function colour(score) {
  if (score === null || score === undefined) return "";
  return state.info.colours[String(score)] || "";
}

const signed = (score) => (score > 0 ? `+${score}` : `${score}`);
const SOURCES = { book: "book", solver: "solver" };

// The text on a score's colour: black or white, whichever contrasts more (WCAG's
// relative luminance: at least 4.5:1 on any colour).
function ink(hex) {
  if (!hex) return "";
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const lum = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return 1.05 / (lum + 0.05) >= (lum + 0.05) / 0.05 ? "#fff" : "#000";
}

// A game against the AI without hints hides the scores; the column buttons stay.
const scoresShown = () => !state.game || state.hints;

function renderScores() {
  const data = state.data;
  const shown = scoresShown();
  for (const label of $("scores").children) {
    const col = Number(label.dataset.col);
    const column = data.columns[col - 1];
    label.className = "score";
    label.dataset.score = column.score === null ? "" : column.score;
    label.style.background = shown ? colour(column.score) : "";
    label.style.color = shown ? ink(colour(column.score)) : "";
    label.title = "";
    label.removeAttribute("aria-disabled");
    if (column.full) {
      label.classList.add(data.game_over ? "over" : "full");
      label.setAttribute("aria-disabled", "true");
      const why = data.game_over ? "the game is over" : "full";
      label.replaceChildren(data.game_over ? "" : text("span", "full"));
      label.setAttribute("aria-label", `column ${col}: ${why}`);
      continue;
    }
    if (!shown) {
      label.classList.add("hidden");
      label.replaceChildren(text("b", col));
      label.setAttribute("aria-label", `column ${col}`);
      label.title = `play column ${col} (hints off: no score)`;
      continue;
    }
    if (column.best) label.classList.add("best");
    const best = column.best ? ", best" : "";
    if (column.score === null) {
      label.classList.add("unknown");
      const words = column.best ? "best found" : "not solved";
      label.replaceChildren(text("b", "?"), text("span", words));
      label.setAttribute("aria-label", `column ${col}: ${words}`);
      label.title = `not solved within ${state.info ? state.info.time : "the"} s`;
      continue;
    }
    label.replaceChildren(text("b", signed(column.score)), text("span", column.words));
    label.setAttribute("aria-label",
                       `column ${col}: ${signed(column.score)}, ${column.words}${best}`);
    label.title = `${column.detail} (${column.source})`;
  }
}

function renderTurn() {
  // Over the scores: whose they are, in words (the stone's colour only repeats them).
  const data = state.data;
  const turn = $("turn");
  if (!data || data.game_over) {
    turn.replaceChildren(data ? "The game is over." : "");
    return;
  }
  const mover = data.to_move === "first" ? "red" : "yellow";
  const dot = text("span", "");
  dot.className = `dot ${data.to_move === "first" ? "x" : "o"}`;
  let words = `${mover[0].toUpperCase()}${mover.slice(1)} to move: each column's score ` +
              `for ${mover}.`;
  if (state.game) {
    const yours = data.ply % 2 === state.game.human;
    const whose = `${yours ? "Your" : "The AI's"} move (${mover})`;
    words = scoresShown() ? `${whose}: each column's score for ${yours ? "you" : "the AI"}.` :
      `${whose}; hints off: no scores.`;
  } else if (state.two) {
    words = `Two players: ${mover} to move; each column's score for ${mover}.`;
  }
  turn.replaceChildren(dot, ` ${words}`);
}

function text(tag, content) {
  const node = document.createElement(tag);
  node.textContent = content;
  return node;
}

function renderTable() {
  const body = $("moves").querySelector("tbody");
  body.replaceChildren();
  const rows = state.data.columns.filter((c) => !c.full);
  rows.sort((a, b) => (b.score ?? -999) - (a.score ?? -999) || a.column - b.column);
  for (const c of rows) {
    const row = document.createElement("tr");
    row.dataset.col = c.column;
    const move = text("td", `${c.best ? "\u2605 " : ""}${c.column}`);
    const score = text("td", c.score === null ? "?" : signed(c.score));
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    swatch.style.background = colour(c.score);
    score.prepend(swatch);
    const book = c.book_depth ? `${c.book_depth} move${c.book_depth === 1 ? "" : "s"}` : "\u2014";
    row.append(move, score, text("td", c.words ?? "not solved in time"),
               text("td", SOURCES[c.source] ?? "\u2014"), text("td", book));
    row.title = c.detail ?? "";
    row.addEventListener("click", () => playColumn(c.column));
    body.appendChild(row);
  }
}

function renderStatus() {
  const data = state.data;
  const status = $("status");
  status.className = "";
  if (data.game_over) {
    status.textContent = data.winner === null ? "The board is full: a draw." :
      `${data.winner === "first" ? "Red (first player)" : "Yellow (second player)"} has won.`;
    return;
  }
  const mover = data.to_move === "first" ? "red" : "yellow";
  const first = `Move ${data.ply + 1}, ${mover} to play.`;
  const cap = `${state.info ? state.info.time : "the time cap"} s`;
  let score;
  if (data.score !== null) {
    score = `${data.score_detail} (${signed(data.score)}, ${data.score_words})`;
    if (!data.complete) score += `; some moves not solved within ${cap}`;
  } else {
    score = `not solved within ${cap}; best move found: ${data.best_found.column}`;
  }
  const span = text("span", ` ${score[0].toUpperCase()}${score.slice(1)}. [${data.source}]`);
  span.className = "position-score";
  status.replaceChildren(first, span);
  if (state.notice) {
    const notice = text("span", ` ${state.notice}`);
    notice.className = "error";
    status.append(notice);
    state.notice = "";
  }
  if (!data.complete) {
    const again = text("button", "solve on");
    again.id = "solve-on";
    again.title = "search again: the solver keeps what it has proved so far";
    again.addEventListener("click", () => load(moves()));
    status.append(" ", again);
  }
}

// -- moving through the line -------------------------------------------------------------

function go(cursor, push = true) {
  state.cursor = Math.max(0, Math.min(cursor, state.line.length));
  update(push);
}

function playColumn(col) {
  const data = state.data;
  pointAt(col);
  if (!data || data.game_over || data.moves !== moves() || data.columns[col - 1].full) return;
  if (state.game && moves().length % 2 !== state.game.human) {
    $("game").textContent = "It is the AI's move.";
    return;
  }
  const next = moves() + col;
  // Against the AI a move played again is a new one: the AI answers it afresh.
  if (state.game || !state.line.startsWith(next)) state.line = next;
  state.cursor = next.length;
  update(true);
}

function undo() {
  // One move back; against the AI, back to your own last turn (the AI's reply undone too).
  let to = state.cursor - 1;
  if (state.game && to >= 0 && to % 2 !== state.game.human) to -= 1;
  if (to >= 0) go(to);
}

function redo() {
  let to = state.cursor + 1;
  if (state.game && to < state.line.length && to % 2 !== state.game.human) to += 1;
  if (to <= state.line.length) go(to);
}

function address(pos) {
  // The page's URL: the line, and two-player mode (?pos=4453&players=2), to share or reload.
  const query = new URLSearchParams();
  if (pos) query.set("pos", pos);
  if (state.two) query.set("players", "2");
  const search = query.toString();
  return search ? `?${search}` : location.pathname;
}

function update(push) {
  const pos = moves();
  if (push) history.pushState(null, "", address(pos));
  renderBoard();
  renderLine();
  load(pos);
  loadReview();
}

async function load(pos) {
  const seq = ++state.seq;
  document.body.dataset.ready = "";
  $("scores").classList.add("pending");
  const slow = setTimeout(() => {
    if (seq === state.seq) $("status").textContent = "Solving\u2026";
  }, 200);
  let data = state.cache.get(pos);
  try {
    if (!data) data = await getJSON(`/api/position?moves=${pos}`);
  } catch (error) {
    if (seq !== state.seq) return;
    clearTimeout(slow);
    showError(error);
    return;
  } finally {
    clearTimeout(slow);
  }
  if (seq !== state.seq) return;
  if (data.complete) state.cache.set(pos, data);  // an incomplete answer may improve later
  state.data = data;
  $("scores").classList.remove("pending");
  renderScores();
  renderTurn();
  renderTable();
  renderStatus();
  renderGame();
  document.body.dataset.pos = pos;
  document.body.dataset.ready = "1";
  if (window.c4ready === undefined) window.c4ready = performance.now();
  aiMove();
}

function showError(error) {
  const status = $("status");
  status.className = "error";
  status.textContent = error.message;
}

function fromURL() {
  const pos = new URLSearchParams(location.search).get("pos") || "";
  if (!new RegExp(`^[1-${WIDTH}]{0,${WIDTH * HEIGHT}}$`).test(pos)) {
    state.notice = `pos=${pos.slice(0, 50)} is not a line of moves ` +
                   `(digits 1-${WIDTH}, at most ${WIDTH * HEIGHT}): showing the empty board.`;
    history.replaceState(null, "", address(""));
    return "";
  }
  return pos;
}

// -- playing the AI ------------------------------------------------------------------------

function startGame() {
  if (state.game) {
    state.game = null;
    redraw();
    return;
  }
  setTwo(false);
  if (state.data && state.data.game_over) {  // a finished game: start a new one
    state.line = "";
    state.cursor = 0;
  }
  const ply = moves().length;
  const youFirst = $("first-move").value === "you";
  state.game = { human: youFirst ? ply % 2 : (ply + 1) % 2, level: $("level").value };
  state.line = moves();  // the game goes on from here
  update(true);
}

function renderGame() {
  const game = state.game;
  $("start").textContent = game ? "Stop the game" : "Play from here";
  $("hints").setAttribute("aria-pressed", String(state.hints));
  $("two").setAttribute("aria-pressed", String(state.two));
  $("back").textContent = state.two ? "\u25C0 undo" : "\u25C0 back";
  $("forward").textContent = state.two ? "redo \u25B6" : "forward \u25B6";
  document.body.classList.toggle("hide-scores", !scoresShown());
  document.body.classList.toggle("two-players", state.two);
  const line = $("game");
  if (!game) {
    line.textContent = "";
    return;
  }
  const data = state.data;
  if (data && data.game_over) {
    const humanWon = data.winner && (data.winner === "first" ? 0 : 1) === game.human;
    line.textContent = data.winner === null ? "A draw." : humanWon ? "You win!" : "The AI wins.";
    return;
  }
  const yours = moves().length % 2 === game.human;
  const last = game.last ? `AI played ${game.last.column} (${describe(game.last)}). ` : "";
  line.textContent = `${last}${yours ? "Your move." : "The AI is thinking\u2026"}`;
}

function toggleHints() {
  state.hints = !state.hints;
  try {
    localStorage.setItem(HINTS_KEY, state.hints ? "1" : "0");
  } catch (error) {
    // no storage (a private window's may refuse): the choice lasts as long as the page
  }
  redraw();
}

const HINTS_KEY = "c4book.hints";

function storedHints() {
  try {
    return localStorage.getItem(HINTS_KEY) === "1";
  } catch (error) {
    return false;
  }
}

function setTwo(on) {
  // Two-player mode: no AI game; the URL says so, for a link that opens the same.
  if (on === state.two) return;
  state.two = on;
  if (on) state.game = null;
  history.replaceState(null, "", address(moves()));
  redraw();
}

function redraw() {
  // The mode or the hints changed: what the page shows of the same position.
  renderGame();
  if (state.data && state.data.moves === moves()) {
    renderScores();
    renderTurn();
  }
}

async function share() {
  const link = location.href;
  const note = $("shared");
  try {
    await navigator.clipboard.writeText(link);
    note.textContent = `Copied: ${link}`;
  } catch (error) {  // no clipboard (a page not served from this machine, over http)
    note.replaceChildren("Copy this link: ", text("a", link));
    note.querySelector("a").href = link;
  }
}

function describe(decision) {
  // decision.how: the server's words, the same as the terminal game's
  return `${decision.how}, ${Math.round(decision.seconds * 1000)} ms`;
}

async function aiMove() {
  const game = state.game;
  const pos = moves();
  if (!game || state.data.game_over || pos.length % 2 === game.human) return;
  if (state.cursor !== state.line.length) return;  // looking back at the game
  let decision;
  try {
    decision = await getJSON(`/api/move?moves=${pos}&level=${game.level}`);
  } catch (error) {
    showError(error);
    return;
  }
  if (state.game !== game || moves() !== pos) return;  // the user went elsewhere meanwhile
  game.last = decision;
  state.line = decision.after;
  state.cursor = decision.after.length;
  update(true);
}

// -- start -------------------------------------------------------------------------------

const FIELDS = "select, input, textarea";
const CONTROLS = "button, a, select, input, textarea, summary";

function onKey(event) {
  if (event.target.closest(FIELDS) || event.altKey || event.ctrlKey || event.metaKey) return;
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  const keys = {
    ArrowLeft: () => moveCursor(-1), ArrowRight: () => moveCursor(1),
    Backspace: undo, u: undo, r: redo,
    Home: () => go(0), End: () => go(state.line.length),
  };
  if (keys[key]) {
    event.preventDefault();
    keys[key]();
  } else if (/^[1-9]$/.test(key) && Number(key) <= WIDTH) {
    playColumn(Number(key));
  } else if ((key === "Enter" || key === " ") && !event.target.closest(CONTROLS)) {
    event.preventDefault();  // (a focused button's own Enter and Space press it)
    playColumn(state.column);
  }
}

async function main() {
  try {
    state.info = await getJSON("/api/info");  // first: the board's size
  } catch (error) {
    showError(error);
    return;
  }
  ({ width: WIDTH, height: HEIGHT } = state.info.board);
  buildBoard();
  $("first").addEventListener("click", () => go(0));
  $("back").addEventListener("click", () => go(state.cursor - 1));
  $("forward").addEventListener("click", () => go(state.cursor + 1));
  $("last").addEventListener("click", () => go(state.line.length));
  $("start").addEventListener("click", startGame);
  $("hints").addEventListener("click", toggleHints);
  $("two").addEventListener("click", () => setTwo(!state.two));
  $("share").addEventListener("click", share);
  state.hints = storedHints();
  $("key-last").textContent = WIDTH;
  document.addEventListener("keydown", onKey);
  window.addEventListener("popstate", () => {
    const pos = fromURL();
    if (!state.line.startsWith(pos)) state.line = pos;
    go(pos.length, false);
    history.replaceState(null, "", address(pos));  // the mode is the page's, not the entry's
  });
  state.two = new URLSearchParams(location.search).get("players") === "2";
  state.line = fromURL();
  state.cursor = state.line.length;
  renderGame();
  update(false);
  for (const level of state.info.levels) {
    const option = new Option(level.rated, level.name, false,
                              level.name === state.info.default_level);
    option.title = level.about;
    $("level").appendChild(option);
  }
  const book = state.info.book;
  const article = WIDTH === 8 ? "an" : "a";  // "an eight by ..."
  const board = WIDTH === 7 && HEIGHT === 6 ? "" : `, on ${article} ${WIDTH}x${HEIGHT} board`;
  $("summary").textContent = book ?
    `The book holds every position to ply ${book.max_ply}${board}; past it the solver answers ` +
    `within ${state.info.time} s. Click a column to play it.` :
    `No book${board}: the solver answers within ${state.info.time} s.`;
  const stones = pons();  // the page says 7x6's
  if (!PONS_7X6.test(stones)) {
    $("note").textContent = $("note").textContent.replace(PONS_7X6, stones);
  }
}

// Pons' score in stones: (cells + 3) // 2 minus the first player's stones when they win,
// (cells + 2) // 2 minus the second's; on 7x6 both are 22, as the page says.
const PONS_7X6 = /22 minus the\s+winner's stones/;

function pons() {
  const first = Math.floor((WIDTH * HEIGHT + 3) / 2), second = Math.floor((WIDTH * HEIGHT + 2) / 2);
  return first === second ? `${first} minus the winner's stones` :
    `${first} minus the first player's stones when they win, ${second} minus the second's`;
}

main();

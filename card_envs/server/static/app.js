// The browser table: a lobby, a table that plays through the JSON API, and a replay viewer.
// No build step: plain DOM, and every text from the server is set as text, never as HTML.

const $ = (id) => document.getElementById(id);
const MOVE_FILTER_FROM = 24; // more legal moves than this: show a filter box
let catalogue = [];
const play = { table: null, seat: 0, humans: [], game: null };
const viewer = { records: [], frames: [], at: 0 };

async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

function show(section) {
  for (const id of ["lobby", "table", "replay"]) $(id).hidden = id !== section;
}

// -- lobby ----------------------------------------------------------------------------------
function currentGame() {
  return catalogue.find((game) => game.name === $("game").value);
}

function fillPlayers() {
  const game = currentGame();
  $("players").replaceChildren(
    ...game.players.map((n) => {
      const option = element("option", String(n));
      option.value = n;
      option.selected = n === game.default_players;
      return option;
    }),
  );
  fillSeats();
  fillOptions();
}

function fillSeats() {
  const game = currentGame();
  const n = Number($("players").value);
  const kinds = ["human", ...game.agents[String(n)]];
  const seats = [];
  for (let seat = 0; seat < n; seat++) {
    const select = element("select");
    select.id = `seat-${seat}`;
    for (const kind of kinds) select.append(element("option", kind));
    select.value = seat === 0 ? "human" : kinds.includes("heuristic") ? "heuristic" : "random";
    const label = element("label", `player_${seat} `);
    label.append(select);
    seats.push(label);
  }
  $("seats").replaceChildren(...seats);
}

function fillOptions() {
  const game = currentGame();
  const fields = Object.entries(game.options).map(([name, value]) => {
    const input = element("input");
    input.id = `opt-${name}`;
    input.dataset.option = name;
    if (typeof value === "boolean") {
      input.type = "checkbox";
      input.checked = value;
    } else if (typeof value === "number") {
      input.type = "number";
      input.value = value;
    } else {
      input.value = Array.isArray(value) ? value.join(", ") : value;
    }
    input.dataset.initial = inputValue(input, value);
    const label = element("label", `${name} `);
    label.append(input);
    return label;
  });
  $("options").replaceChildren(...fields);
}

function inputValue(input, like) {
  if (input.type === "checkbox") return JSON.stringify(input.checked);
  if (input.type === "number") return JSON.stringify(Number(input.value));
  if (Array.isArray(like)) return JSON.stringify(input.value.split(",").map((s) => s.trim()));
  return JSON.stringify(input.value);
}

function chosenOptions() {
  const game = currentGame();
  const options = {};
  for (const input of $("options").querySelectorAll("input")) {
    const value = inputValue(input, game.options[input.dataset.option]);
    if (value !== input.dataset.initial) options[input.dataset.option] = JSON.parse(value);
  }
  return options;
}

async function deal() {
  $("lobby-error").textContent = "";
  const n = Number($("players").value);
  const seats = [...Array(n).keys()].map((s) => $(`seat-${s}`).value);
  const seed = $("seed").value === "" ? null : Number($("seed").value);
  try {
    const body = { game: $("game").value, seats, seed, options: chosenOptions() };
    const { table } = await api("POST", "/api/tables", body);
    play.table = table;
    play.game = body.game;
    play.humans = seats.flatMap((kind, s) => (kind === "human" ? [s] : []));
    play.seat = play.humans[0] ?? 0;
    show("table");
    await refresh();
  } catch (error) {
    $("lobby-error").textContent = error.message;
  }
}

// -- the table ------------------------------------------------------------------------------
async function refresh() {
  if (!play.humans.length) {
    $("table-title").textContent = `${play.game}: agents only`;
    $("status").textContent = "no person seated: the agents have played the whole game";
    $("moves").replaceChildren();
    $("result-text").textContent = "Download its record and step through it in the replay viewer.";
    $("download").href = `/api/tables/${play.table}/record`;
    $("result").hidden = false;
    return;
  }
  drawTable(await api("GET", `/api/tables/${play.table}?seat=${play.seat}`));
}

async function act(action) {
  $("act-error").textContent = "";
  try {
    const state = await api("POST", `/api/tables/${play.table}/act`, { seat: play.seat, action });
    if (state.to_act !== null && state.to_act !== play.seat && play.humans.includes(state.to_act)) {
      play.seat = state.to_act; // several people at one screen: it is the next one's turn
      await refresh();
    } else {
      drawTable(state);
    }
  } catch (error) {
    $("act-error").textContent = error.message;
  }
}

function drawTable(state) {
  document.body.dataset.draws = Number(document.body.dataset.draws || 0) + 1; // tests wait on it
  $("table-title").textContent = `${state.game}: you are player_${state.seat}`;
  const round = `round ${state.view.round + 1}`;
  $("status").textContent = state.over
    ? "game over"
    : state.to_act === state.seat
      ? `${round}: your move`
      : `${round}: player_${state.to_act} is to act`;
  drawScores($("scores"), state.view.scores, state.seat);
  drawGroups($("groups"), state.view.groups);
  $("text").textContent = state.view.text;
  drawMoves(state.legal);
  drawLog(state.log, state.seat);
  $("result").hidden = !state.over;
  if (state.over) drawResult(state);
}

function drawScores(table, scores, seat) {
  const names = element("tr");
  const values = element("tr");
  scores.forEach((score, s) => {
    names.append(element("th", s === seat ? `player_${s} (you)` : `player_${s}`));
    values.append(element("td", String(score)));
  });
  table.replaceChildren(names, values);
}

function drawGroups(box, groups) {
  box.replaceChildren(
    ...groups.map((group) => {
      const row = element("div", undefined, "group");
      row.append(element("span", group.title, "group-title"));
      for (const card of group.cards) row.append(element("span", card.label, `card c-${card.colour}`));
      return row;
    }),
  );
}

function drawMoves(legal) {
  const filter = $("move-filter");
  filter.hidden = legal.length <= MOVE_FILTER_FROM;
  const wanted = filter.hidden ? "" : filter.value.toLowerCase();
  const buttons = legal
    .filter((move) => move.name.toLowerCase().includes(wanted))
    .map((move) => {
      const button = element("button", move.name, "move");
      button.type = "button";
      button.dataset.id = move.id;
      button.addEventListener("click", () => act(move.id));
      return button;
    });
  $("moves").replaceChildren(...buttons);
  $("moves").dataset.legal = JSON.stringify(legal);
}

function drawLog(log, seat) {
  $("log").replaceChildren(
    ...log.map((entry) => {
      if (entry.round !== undefined) {
        const scores = entry.scores.map((v, s) => `player_${s} ${v}`).join(", ");
        return element("li", `round ${entry.round} over: scores ${scores}`, "round-end");
      }
      const who = entry.seat === seat ? "you" : `player_${entry.seat}`;
      return element("li", `${who}: ${entry.move}`);
    }),
  );
  $("log").lastElementChild?.scrollIntoView({ block: "nearest" });
}

function drawResult(state) {
  const { scores, winners, truncated } = state.result;
  const scoreText = scores.map((v, s) => `player_${s} ${v}`).join(", ");
  const rewards = Object.entries(state.rewards).map(([a, r]) => `${a} ${r}`).join(", ");
  const verdict = truncated
    ? "stopped by the game's cap: no winner"
    : `winners: ${winners.map((w) => `player_${w}`).join(", ") || "nobody"}`;
  $("result-text").textContent = `Game over. ${verdict}. Scores: ${scoreText}. Rewards: ${rewards}.`;
  $("download").href = `/api/tables/${play.table}/record`;
}

// -- the replay viewer ----------------------------------------------------------------------
async function openRecordFile() {
  $("replay-error").textContent = "";
  const file = $("record-file").files[0];
  if (!file) return;
  try {
    const lines = (await file.text()).split("\n").filter((line) => line.trim());
    viewer.records = lines.map((line, i) => {
      try {
        return JSON.parse(line);
      } catch {
        throw new Error(`line ${i + 1} is not JSON`);
      }
    });
  } catch (error) {
    $("replay-error").textContent = error.message;
    return;
  }
  $("record-index").replaceChildren(
    ...viewer.records.map((record, i) => {
      const option = element("option", `${i + 1}: ${record.env} (${record.agents?.join(", ")})`);
      option.value = i;
      return option;
    }),
  );
  await loadRecord();
}

async function loadRecord() {
  $("replay-error").textContent = "";
  const record = viewer.records[Number($("record-index").value)];
  try {
    viewer.frames = (await api("POST", "/api/replay", record)).frames;
  } catch (error) {
    $("replay-error").textContent = error.message;
    $("replay-controls").hidden = true;
    return;
  }
  const seats = viewer.frames[0].seats.map((_, s) => {
    const option = element("option", `player_${s}'s view`);
    option.value = s;
    return option;
  });
  const whole = element("option", "the whole table");
  whole.value = "table";
  $("replay-seat").replaceChildren(whole, ...seats);
  $("replay-controls").hidden = false;
  drawFrame(0);
  document.body.dataset.replays = Number(document.body.dataset.replays || 0) + 1;
}

function drawFrame(at) {
  viewer.at = Math.max(0, Math.min(at, viewer.frames.length - 1));
  const frame = viewer.frames[viewer.at];
  const last = viewer.frames.length - 1;
  $("replay-position").textContent = `step ${viewer.at} of ${last}`;
  $("replay-move").textContent =
    frame.move === null ? "the end of the game" : `next move: player_${frame.seat}: ${frame.move}`;
  const choice = $("replay-seat").value;
  if (choice === "table") {
    drawScores($("replay-scores"), frame.seats[0].scores, -1);
    const groups = frame.seats.flatMap((view, s) =>
      view.groups.map((g) => ({ ...g, title: `player_${s}: ${g.title}` })),
    );
    drawGroups($("replay-groups"), groups);
    $("replay-text").textContent = frame.text;
  } else {
    const seat = Number(choice);
    drawScores($("replay-scores"), frame.seats[seat].scores, seat);
    drawGroups($("replay-groups"), frame.seats[seat].groups);
    $("replay-text").textContent = frame.seats[seat].text;
  }
}

// -- wiring ---------------------------------------------------------------------------------
async function main() {
  for (const button of document.querySelectorAll("nav button")) {
    button.addEventListener("click", () => show(button.dataset.show));
  }
  $("game").addEventListener("change", fillPlayers);
  $("players").addEventListener("change", () => {
    fillSeats();
  });
  $("start").addEventListener("click", deal);
  $("move-filter").addEventListener("input", () => drawMoves(JSON.parse($("moves").dataset.legal)));
  $("record-file").addEventListener("change", openRecordFile);
  $("record-index").addEventListener("change", loadRecord);
  $("replay-seat").addEventListener("change", () => drawFrame(viewer.at));
  $("replay-first").addEventListener("click", () => drawFrame(0));
  $("replay-back").addEventListener("click", () => drawFrame(viewer.at - 1));
  $("replay-forward").addEventListener("click", () => drawFrame(viewer.at + 1));
  $("replay-last").addEventListener("click", () => drawFrame(viewer.frames.length - 1));
  catalogue = await api("GET", "/api/games");
  $("game").replaceChildren(...catalogue.map((game) => element("option", game.name)));
  fillPlayers();
  document.body.dataset.ready = "1";
}

main();

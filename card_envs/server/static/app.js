// The browser table: a lobby, a table that plays through the JSON API, and a replay viewer.
// No build step: plain DOM, and every text from the server is set as text, never as HTML.

const $ = (id) => document.getElementById(id);
const MOVE_FILTER_FROM = 24; // more legal moves than this: show a filter box
// Milliseconds between the agents' moves as the log reveals them (?pause=0: none, for tests).
const PAUSE = Number(new URLSearchParams(location.search).get("pause") ?? 450);
let catalogue = [];
const play = { table: null, seat: 0, humans: [], game: null, cards: new Set(), logged: 0 };
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

// A score or reward as people write it: 3, -0.33.
function number(value) {
  if (value === null || value === undefined) return "?";
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

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

// One field per option the game declares: a checkbox, a dropdown, a box per choice of a set,
// or a number field within its range; each with its description.
function fillOptions() {
  const game = currentGame();
  const fields = Object.entries(game.options).map(([name, option]) => {
    const label = element("label", undefined, "option");
    label.append(element("span", name.replaceAll("_", " "), "option-name"));
    label.append(optionInput(name, option));
    label.append(element("span", option.description, "hint"));
    return label;
  });
  $("options").replaceChildren(...fields);
}

function optionInput(name, option) {
  if (option.kind === "boolean") {
    const input = element("input");
    Object.assign(input, { type: "checkbox", id: `opt-${name}`, checked: option.default });
    return input;
  }
  if (option.kind === "choice") {
    const select = element("select");
    select.id = `opt-${name}`;
    for (const choice of option.choices) select.append(element("option", String(choice)));
    select.value = option.default;
    return select;
  }
  if (option.kind === "choices") {
    const box = element("span", undefined, "choices");
    box.id = `opt-${name}`;
    for (const choice of option.choices) {
      const tick = element("input");
      Object.assign(tick, { type: "checkbox", value: choice, checked: option.default.includes(choice) });
      const item = element("label", undefined, "choice");
      item.append(tick, ` ${choice}`);
      box.append(item);
    }
    return box;
  }
  const input = element("input");
  Object.assign(input, { type: "number", id: `opt-${name}`, step: 1, value: option.default });
  if (option.min !== null) input.min = option.min;
  if (option.max !== null) input.max = option.max;
  return input;
}

function optionValue(name, option) {
  const input = $(`opt-${name}`);
  if (option.kind === "boolean") return input.checked;
  if (option.kind === "choice") return input.value;
  if (option.kind === "choices") {
    return [...input.querySelectorAll("input:checked")].map((tick) => tick.value);
  }
  return input.value === "" ? option.default : Number(input.value);
}

function chosenOptions() {
  const options = {};
  for (const [name, option] of Object.entries(currentGame().options)) {
    const value = optionValue(name, option);
    if (JSON.stringify(value) !== JSON.stringify(option.default)) options[name] = value;
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
    play.cards = new Set();
    play.logged = 0;
    show("table");
    await refresh();
  } catch (error) {
    $("lobby-error").textContent = error.message;
  }
}

// -- the table ------------------------------------------------------------------------------
async function refresh() {
  if (!play.humans.length) {
    // No person seated: the agents played the whole game; watch it as a spectator.
    await drawTable(await api("GET", `/api/tables/${play.table}`));
    return;
  }
  await drawTable(await api("GET", `/api/tables/${play.table}?seat=${play.seat}`));
}

async function act(action) {
  $("act-error").textContent = "";
  if ($("moves").dataset.busy === "1") return;
  try {
    const state = await api("POST", `/api/tables/${play.table}/act`, { seat: play.seat, action });
    if (state.to_act !== null && state.to_act !== play.seat && play.humans.includes(state.to_act)) {
      play.seat = state.to_act; // several people at one screen: it is the next one's turn
      play.logged = 0;
      await refresh();
    } else {
      await drawTable(state);
    }
  } catch (error) {
    $("act-error").textContent = error.message;
  }
}

function who(seat, viewer) {
  return seat === viewer ? "you" : `player_${seat}`;
}

async function drawTable(state) {
  const watching = state.seat === null;
  $("table-title").textContent = watching
    ? `${titleOf(state.game)}: watching (agents only)`
    : `${titleOf(state.game)}: you are player_${state.seat}`;
  drawStatus(state);
  drawScores($("scores"), state.view.scores, state.seat, state.over ? null : state.to_act);
  drawGroups($("groups"), state.view.groups, play.cards);
  play.cards = cardKeys(state.view.groups);
  $("text").textContent = state.view.text;
  $("moves").replaceChildren();
  await revealLog(state.log, state.seat);
  drawMoves(state.legal);
  $("result").hidden = !state.over;
  if (state.over) drawResult(state);
  document.body.dataset.draws = Number(document.body.dataset.draws || 0) + 1; // tests wait on it
}

function titleOf(name) {
  return catalogue.find((game) => game.name === name)?.title ?? name;
}

function drawStatus(state) {
  const round = `Round ${state.view.round}`;
  const status = $("status");
  status.className = "";
  if (state.over) {
    status.textContent = "Game over";
  } else if (state.to_act === state.seat) {
    status.textContent = `${round}: your move`;
    status.className = "your-turn";
  } else {
    status.textContent = `${round}: player_${state.to_act} is to act`;
  }
}

function drawScores(table, scores, seat, toAct) {
  const names = element("tr");
  const values = element("tr");
  scores.forEach((score, s) => {
    const head = element("th", s === seat ? `player_${s} (you)` : `player_${s}`);
    if (s === toAct) head.className = "to-act";
    names.append(head);
    values.append(element("td", number(score)));
  });
  table.replaceChildren(names, values);
}

// Each card by its group and copy (the second 7 of a hand is another card), so that a card
// not there at the last draw can be highlighted: the last trick's cards, a take.
function cardKeys(groups) {
  return new Set(groups.flatMap((group) => group.cards.map((_, i) => cardKey(group, i))));
}

function cardKey(group, i) {
  const label = group.cards[i].label;
  const copy = group.cards.slice(0, i).filter((card) => card.label === label).length;
  return `${group.title}|${label}|${copy}`;
}

function drawGroups(box, groups, before) {
  box.replaceChildren(
    ...groups.map((group) => {
      const row = element("div", undefined, "group");
      row.append(element("span", group.title, "group-title"));
      group.cards.forEach((card, i) => {
        const fresh = before && before.size && !before.has(cardKey(group, i));
        row.append(element("span", card.label, `card c-${card.colour}${fresh ? " fresh" : ""}`));
      });
      return row;
    }),
  );
}

function drawMoves(legal) {
  const filter = $("move-filter");
  filter.hidden = legal.length <= MOVE_FILTER_FROM;
  const wanted = filter.hidden ? "" : filter.value.toLowerCase();
  const shown = legal.filter((move) => move.name.toLowerCase().includes(wanted));
  const buttons = shown.map((move, i) => {
    const button = element("button", i < 9 ? `${i + 1}  ${move.name}` : move.name, "move");
    button.type = "button";
    button.dataset.id = move.id;
    button.title = i < 9 ? `key ${i + 1}` : "";
    button.addEventListener("click", () => act(move.id));
    return button;
  });
  $("moves").replaceChildren(...buttons);
  $("moves").dataset.legal = JSON.stringify(legal);
}

function logLine(entry, seat) {
  if (entry.round !== undefined) {
    const scores = entry.scores.map((v, s) => `${who(s, seat)} ${number(v)}`).join(", ");
    return element("li", `End of round ${entry.round}: ${scores}`, "round-end");
  }
  return element("li", `${who(entry.seat, seat)}: ${entry.move}`);
}

// The log, the entries new since the last draw appended one at a time, PAUSE apart, each shown
// in the banner too, so that the agents' moves can be followed; the moves wait meanwhile.
async function revealLog(log, seat) {
  const box = $("log");
  const start = Math.min(play.logged, log.length);
  if (start === 0) box.replaceChildren();
  for (const item of box.querySelectorAll(".recent")) item.classList.remove("recent");
  $("moves").dataset.busy = "1";
  for (let i = start; i < log.length; i++) {
    const line = logLine(log[i], seat);
    line.classList.add("recent");
    box.append(line);
    $("last-move").textContent = line.textContent;
    line.scrollIntoView({ block: "nearest" });
    if (PAUSE > 0 && start > 0 && log[i].seat !== seat && log[i].move !== undefined) {
      await sleep(PAUSE);
    }
  }
  play.logged = log.length;
  $("moves").dataset.busy = "0";
}

function drawResult(state) {
  const { scores, winners, truncated } = state.result;
  const names = winners.map((w) => (w === state.seat ? "you" : `player_${w}`));
  const verdict = truncated
    ? "Stopped by the game's cap: no winner"
    : winners.length === 0
      ? "Nobody won"
      : `${names.length > 1 ? "Winners" : "Winner"}: ${names.join(" and ")}`;
  const scoreText = scores.map((v, s) => `${who(s, state.seat)} ${number(v)}`).join(", ");
  $("result-text").textContent = `Game over. ${verdict}. Scores: ${scoreText}.`;
  $("result-text").className = winners.includes(state.seat) ? "won" : "";
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
    frame.move === null ? "the end of the game" : `Next move: player_${frame.seat}: ${frame.move}`;
  if (frame.move === null) $("replay-move").textContent = `the end of the game: ${frame.ending}`;
  const choice = $("replay-seat").value;
  const toAct = frame.move === null ? null : frame.seat;
  if (choice === "table") {
    // Every hand labelled by its seat; cards all seats see (face up) once.
    drawScores($("replay-scores"), frame.seats[0].scores, -1, toAct);
    drawGroups($("replay-groups"), frame.groups);
    $("replay-text").textContent = frame.text;
  } else {
    const seat = Number(choice);
    drawScores($("replay-scores"), frame.seats[seat].scores, seat, toAct);
    drawGroups($("replay-groups"), frame.seats[seat].groups);
    $("replay-text").textContent = frame.seats[seat].text;
  }
}

// -- keys ---------------------------------------------------------------------------------
// On a table: 1-9 play the listed move, / goes to the filter (Enter there plays the first
// match). In the replay viewer: the arrows step, Home and End go to either end.
function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const typing = ["INPUT", "SELECT", "TEXTAREA"].includes(event.target.tagName);
  if (!$("table").hidden) {
    if (event.key === "Enter" && event.target.id === "move-filter") {
      $("moves").querySelector("button.move")?.click();
    } else if (!typing && event.key === "/" && !$("move-filter").hidden) {
      event.preventDefault();
      $("move-filter").focus();
    } else if (!typing && /^[1-9]$/.test(event.key)) {
      $("moves").querySelectorAll("button.move")[Number(event.key) - 1]?.click();
    }
  } else if (!$("replay").hidden && !typing && viewer.frames.length) {
    const step = { ArrowLeft: -1, ArrowRight: 1 }[event.key];
    if (step) drawFrame(viewer.at + step);
    if (event.key === "Home") drawFrame(0);
    if (event.key === "End") drawFrame(viewer.frames.length - 1);
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
  document.addEventListener("keydown", onKey);
  try {
    catalogue = await api("GET", "/api/games");
  } catch (error) {
    $("loading").textContent = `Could not load the games: ${error.message}`;
    return;
  }
  $("game").replaceChildren(
    ...catalogue.map((game) => {
      const option = element("option", `${game.title} (${game.name})`);
      option.value = game.name;
      return option;
    }),
  );
  fillPlayers();
  $("loading").hidden = true;
  $("new-table").hidden = false;
  document.body.dataset.ready = "1";
}

main();

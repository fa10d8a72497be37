# ruff: noqa: E501  (HTML, CSS and JavaScript in one string)
"""The scoreboard page: one HTML file, no build step, no outside scripts or fonts.

It fetches /api/tables and /api/standings, draws them, and fetches again whenever
/api/stream says the hub changed. Large type on a dark ground for a projector; one
column on a phone, a grid on a wide screen.
"""

PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Club night: scoreboard</title>
<style>
  :root { color-scheme: dark; --bg:#111; --card:#1d1f24; --fg:#f2f2f2; --dim:#9aa0a6; --ok:#4caf50; --off:#e57373; --acc:#ffd54f; }
  body { margin:0; font:18px/1.35 system-ui, sans-serif; background:var(--bg); color:var(--fg); }
  header { padding:.6rem 1rem; display:flex; justify-content:space-between; align-items:baseline; flex-wrap:wrap; }
  h1 { font-size:1.6rem; margin:0; } h2 { font-size:1.25rem; margin:1rem 1rem .4rem; color:var(--acc); }
  #live { font-size:.9rem; color:var(--dim); }
  .grid { display:grid; grid-template-columns:repeat(auto-fill, minmax(17rem, 1fr)); gap:.7rem; padding:0 1rem; }
  .card { background:var(--card); border-radius:.5rem; padding:.6rem .8rem; }
  .card h3 { margin:0 0 .3rem; font-size:1.2rem; display:flex; justify-content:space-between; }
  .online { color:var(--ok); font-size:.85rem; } .offline, .unknown { color:var(--off); font-size:.85rem; }
  table { border-collapse:collapse; width:100%; } td, th { padding:.15rem .3rem; text-align:left; }
  td.n, th.n { text-align:right; font-variant-numeric:tabular-nums; }
  .turn { color:var(--acc); } .dim { color:var(--dim); font-size:.85rem; }
  .wide { padding:0 1rem; overflow-x:auto; }
  .wide table { background:var(--card); border-radius:.5rem; }
  @media (min-width: 1600px) { body { font-size:24px; } }
  @media (max-width: 600px) {
    #results thead { display:none; } #results tr { display:block; padding:.35rem .2rem; border-bottom:1px solid #333; }
    #results td { display:inline; padding:0 .3rem 0 0; } #results td:nth-child(3), #results td:nth-child(4) { display:block; }
    #results td:nth-child(4) { color:var(--dim); font-size:.9rem; } }
</style>
</head>
<body>
<header><h1>Club night</h1><span id="live">connecting...</span></header>
<h2>Tables</h2><div id="tables" class="grid"></div>
<h2>Results</h2><div class="wide"><table id="results"><thead><tr><th>table</th><th>game</th><th>players and scores</th><th>result</th></tr></thead><tbody></tbody></table></div>
<h2>Standings</h2><div id="standings" class="grid"></div>
<script>
"use strict";
const esc = s => String(s).replace(/[&<>"']/g, c => ({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;","'":"&#39;"}[c]));
function seats(players, scores, turn) {
  return "<table>" + players.map((p, i) =>
    `<tr class="${i === turn ? "turn" : ""}"><td>${esc(p)}</td><td class="n score">${scores && scores[i] !== undefined ? esc(scores[i]) : ""}</td></tr>`).join("") + "</table>";
}
function drawTables(data) {
  document.getElementById("tables").innerHTML = data.tables.map(t => {
    const s = t.state;
    const game = s ? `${esc(s.title || s.game)} <span class="dim">game ${esc(s.game_id)}, ${esc(s.events)} events${s.over ? ", over" : ""}</span>` : '<span class="dim">no game yet</span>';
    return `<div class="card table" data-table="${esc(t.table)}"><h3><span>${esc(t.table)}</span><span class="${esc(t.status)}">${esc(t.status)}</span></h3>
      <div>${game}</div>${s ? seats(s.players, s.scores, s.turn) : ""}</div>`;
  }).join("");
  const rows = [];
  for (const t of data.tables) for (const g of t.games) {
    if (g.status !== "finished") continue;
    const state = g.correction ? `corrected: ${esc(g.correction.reason)}` : g.final ? `confirmed by seat ${esc(g.confirmed_by + 1)}` : "awaiting confirmation";
    const who = g.players.map((p, i) => `${esc(p)} <b class="score">${esc(g.scores[i])}</b>${g.winners.includes(i) ? " &#9733;" : ""}`).join(", ");
    rows.push(`<tr class="result"><td>${esc(g.table)}</td><td>${esc(g.game)} ${esc(g.game_id)}</td><td>${who}</td><td>${state}</td></tr>`);
  }
  document.querySelector("#results tbody").innerHTML = rows.join("") || '<tr><td colspan="4" class="dim">no finished game yet</td></tr>';
}
function drawStandings(data) {
  const parts = [`<div class="card"><h3>Evening</h3><table><tr><th>player</th><th class="n">wins</th><th class="n">games</th></tr>` +
    data.players.map(p => `<tr><td>${esc(p.player)}</td><td class="n">${p.wins}</td><td class="n">${p.games}</td></tr>`).join("") + "</table></div>"];
  for (const [game, rows] of Object.entries(data.games)) {
    parts.push(`<div class="card"><h3>${esc(game)}</h3><table><tr><th>player</th><th class="n">rating</th><th class="n">games</th></tr>` +
      rows.map(r => `<tr><td>${esc(r.player)}</td><td class="n">${r.rating.toFixed(0)}</td><td class="n">${r.games}</td></tr>`).join("") + "</table></div>");
  }
  document.getElementById("standings").innerHTML = parts.join("");
}
let busy = false, again = false;
async function refresh() {
  if (busy) { again = true; return; }
  busy = true;
  try {
    const [t, s] = await Promise.all([fetch("/api/tables"), fetch("/api/standings")]);
    drawTables(await t.json()); drawStandings(await s.json());
    document.getElementById("live").textContent = "live, updated " + new Date().toLocaleTimeString();
    document.body.dataset.loaded = "yes";
  } catch (e) {
    document.getElementById("live").textContent = "hub unreachable, retrying";
  } finally {
    busy = false;
    if (again) { again = false; setTimeout(refresh, 250); }
  }
}
refresh().then(() => {
  const stream = new EventSource("/api/stream");
  stream.onmessage = () => refresh();
  stream.onerror = () => { document.getElementById("live").textContent = "reconnecting..."; };
});
</script>
</body>
</html>
"""

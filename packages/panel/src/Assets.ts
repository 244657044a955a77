/**
 * The panel's only assets, served by the package itself (no CDN, nothing to build): one style
 * sheet and one small script of progressive enhancement (copy buttons, confirmations). Every page
 * works without the script.
 */

/** The style sheet. */
export const css = `
:root{--fg:#1b1f24;--muted:#57606a;--bg:#fff;--line:#d0d7de;--accent:#0b5fff;--brand:#0b5fff;--on-brand:#fff;--ok:#116329;--bad:#a40e26;--warn:#7a4d00;--soft:#f6f8fa;color-scheme:light}
*{box-sizing:border-box}
[hidden]{display:none!important}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg);overflow-wrap:break-word}
a{color:var(--accent)}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,summary:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
img,svg{max-width:100%}
.skip{position:absolute;left:-9999px}.skip:focus{left:8px;top:8px;background:#fff;padding:8px;z-index:10}
.visually-hidden{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
header.top{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center;justify-content:space-between;padding:10px 16px;border-bottom:1px solid var(--line);background:var(--soft)}
header.top .brand{font-weight:700;text-decoration:none;color:var(--fg);display:inline-flex;align-items:center;gap:8px;min-width:0}
header.top .brand img{height:32px;width:auto;max-width:160px}
nav.main ul{list-style:none;display:flex;flex-wrap:wrap;gap:4px 14px;margin:0;padding:0}
nav.main a{display:inline-block;padding:4px 0}
nav.main a[aria-current=page]{font-weight:700;color:var(--fg)}
.switches,.switches .wide-only,.menu-panel{display:flex;flex-wrap:wrap;gap:8px;align-items:center}
.narrow-only{display:none}
fieldset.plain{border:0;padding:0;margin:0;min-width:0}
details.account-menu{position:relative}
details.account-menu summary{cursor:pointer;padding:4px 10px;border:1px solid var(--line);border-radius:999px;background:#fff;list-style-position:inside}
details.account-menu .menu-panel{position:absolute;right:0;top:calc(100% + 6px);z-index:20;width:min(300px,calc(100vw - 24px));padding:12px;background:#fff;border:1px solid var(--line);border-radius:8px;box-shadow:0 6px 18px rgba(0,0,0,.15)}
.pill{display:inline-block;padding:2px 10px;border:1px solid var(--line);border-radius:999px;text-decoration:none;color:var(--fg);background:#fff}
.pill[aria-current=true]{background:var(--fg);color:#fff;border-color:var(--fg)}
.mode-live{background:#fff4e5}
main{max-width:1100px;margin:0 auto;padding:16px}
footer.site{max-width:1100px;margin:24px auto 0;padding:12px 16px;border-top:1px solid var(--line);color:var(--muted);font-size:.9rem}
h1{font-size:1.5rem;margin:.5rem 0 1rem}
h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(220px,1fr));gap:12px}
.card{border:1px solid var(--line);border-radius:8px;padding:12px 16px;min-width:0}
.card .value{font-size:1.6rem;font-weight:700}
.banner{border:1px solid var(--bad);background:#ffebe9;color:var(--bad);padding:10px 14px;border-radius:8px;margin:0 0 12px}
.banner a,.error a{color:var(--bad);font-weight:700}
.notice{border:1px solid var(--ok);background:#dafbe1;color:var(--ok);padding:10px 14px;border-radius:8px;margin:0 0 12px}
.error{border:1px solid var(--bad);background:#ffebe9;color:var(--bad);padding:10px 14px;border-radius:8px;margin:0 0 12px}
.table-wrap{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;width:100%;font-size:.95rem}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{background:var(--soft)}
td.num,th.num{text-align:right;white-space:nowrap}
td ul{margin:0;padding-left:1.1em}
form.inline{display:inline}
form.stack{display:grid;gap:10px;max-width:460px}
form.filters{display:flex;flex-wrap:wrap;gap:8px 12px;align-items:flex-end}
label{display:block;font-weight:600}
input,select{font:inherit;padding:6px 8px;border:1px solid #8c959f;border-radius:6px;max-width:100%}
input[type=text],input[type=email],input[type=password],input[type=url]{width:100%}
.hint{color:var(--muted);font-size:.9rem;font-weight:400}
button,.button{font:inherit;padding:6px 14px;border-radius:6px;border:1px solid var(--brand);background:var(--brand);color:var(--on-brand);cursor:pointer;text-decoration:none;display:inline-block;min-height:36px}
button.secondary,.button.secondary{background:#fff;color:var(--accent);border-color:var(--accent)}
button.danger{background:var(--bad);border-color:var(--bad);color:#fff}
button:disabled,button[aria-disabled=true]{background:#eaeef2;border-color:#8c959f;color:#424a53;cursor:not-allowed}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em;overflow-wrap:anywhere}
td .mono,td code{white-space:nowrap}
.id{display:inline-block;max-width:100%;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;vertical-align:bottom}
td.wrap,td.wrap .mono{white-space:normal;overflow-wrap:anywhere;min-width:14ch}
.secret{display:block;padding:8px;background:var(--soft);border:1px solid var(--line);border-radius:6px;word-break:break-all;white-space:normal}
.status-completed,.status-delivered,.status-healthy{color:var(--ok);font-weight:600}
.status-failed,.status-failing{color:var(--bad);font-weight:600}
.status-pending{color:var(--warn);font-weight:600}
.chart{margin:0}
.chart svg.bars{display:block;width:100%;height:240px;overflow:visible}
.chart text.axis{font-size:13px;fill:#424a53}
.chart g.day:hover rect.hit{fill:rgba(11,95,255,.08)}
.chart-tip{min-height:1.5em;margin:4px 0;font-size:.9rem;color:var(--fg)}
.legend{display:flex;flex-wrap:wrap;gap:6px 16px;list-style:none;padding:0;margin:6px 0}
.swatch{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:middle}
.s-received{background:#116329}.s-sent{background:#0b5fff}.s-fees{background:#a40e26}
dl.fields{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:4px 16px}
dl.fields dt{font-weight:600}dl.fields dd{margin:0;overflow-wrap:anywhere;min-width:0}
.qr img{display:block;width:min(100%,300px);min-width:240px;height:auto;aspect-ratio:1;image-rendering:pixelated;border:1px solid var(--line);background:#fff}
.paid-box{border:1px solid var(--ok);background:#dafbe1;border-radius:8px;padding:10px 14px;margin:0 0 12px}
.live[data-state=paid]{color:var(--ok);font-weight:700}
.pager{display:flex;flex-wrap:wrap;gap:12px;align-items:center;margin:12px 0}
.signin{max-width:420px;margin:48px auto}
.receipt{max-width:560px;border:1px solid var(--line);border-radius:12px;padding:16px 20px;background:#fff}
.receipt .amount{font-size:2rem;font-weight:700;margin:.25rem 0}
.receipt dl.fields{grid-template-columns:minmax(8em,max-content) minmax(0,1fr)}
.receipt .test-mark{display:inline-block;border:2px solid var(--warn);color:var(--warn);font-weight:700;padding:2px 8px;border-radius:6px;text-transform:uppercase;letter-spacing:.05em}
.receipt-actions{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:16px 0}
@media (max-width:640px){
header.top{display:grid;grid-template-columns:minmax(0,1fr) auto;gap:4px 8px;padding:6px 12px}
header.top .brand{grid-column:1;grid-row:1;white-space:nowrap;overflow:hidden;font-size:.95rem}
header.top .brand span{overflow:hidden;text-overflow:ellipsis}
header.top .brand img{height:24px}
details.account-menu{display:block;grid-column:2;grid-row:1}
nav.main{grid-column:1/3;grid-row:2;min-width:0}
nav.main ul{flex-wrap:nowrap;overflow-x:auto;white-space:nowrap;gap:4px 16px;padding-bottom:2px}
header.top .switches{grid-column:1/3;grid-row:3;gap:6px;font-size:.9rem}
.switches .wide-only{display:none}
.card .value{font-size:1.3rem}
main{padding:12px}
dl.fields,.receipt dl.fields{grid-template-columns:minmax(0,1fr);gap:0}
dl.fields dd{margin:0 0 8px}
table.responsive,table.responsive tbody,table.responsive tr,table.responsive td{display:block;width:100%}
table.responsive thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
table.responsive tr{border:1px solid var(--line);border-radius:8px;margin:0 0 10px;padding:6px 12px}
table.responsive td{display:grid;grid-template-columns:minmax(6.5em,34%) minmax(0,1fr);gap:8px;border:0;padding:4px 0;text-align:left;white-space:normal}
table.responsive td::before{content:attr(data-label);font-weight:600;color:var(--muted)}
table.responsive td:not([data-label])::before,table.responsive td[data-label=""]::before{content:none}
table.responsive td:not([data-label]),table.responsive td[data-label=""]{display:block}
table.responsive td .mono,table.responsive td code{white-space:normal;overflow-wrap:anywhere}
table.responsive td .id{white-space:nowrap}
}
@media print{
@page{margin:16mm}
body{background:#fff;color:#000;font-size:12pt}
header.top,footer.site,.skip,.no-print,nav,form,button,.button{display:none!important}
main{max-width:none;padding:0}
a{color:#000;text-decoration:none}
.receipt{border:1px solid #000;max-width:none}
.mode-live{background:#fff}
}
`

/** The script: copy buttons and confirmations (each also works without it). */
export const js = `
"use strict";
document.addEventListener("click", function (event) {
  var target = event.target;
  if (!(target instanceof Element)) return;
  var copy = target.closest("[data-copy]");
  if (copy) {
    var source = document.getElementById(copy.getAttribute("data-copy"));
    if (source && navigator.clipboard) {
      event.preventDefault();
      navigator.clipboard.writeText(source.textContent.trim()).then(function () {
        copy.textContent = copy.getAttribute("data-copied") || "Copied";
      });
    }
  }
});
document.addEventListener("submit", function (event) {
  var form = event.target;
  if (!(form instanceof HTMLFormElement)) return;
  if (form.hasAttribute("data-confirm") && !window.confirm(form.getAttribute("data-confirm"))) {
    event.preventDefault();
    return;
  }
  // One submission per form: a second click while the first is on its way does nothing.
  if (form.getAttribute("method") === "post") {
    if (form.dataset.sent === "1") {
      event.preventDefault();
      return;
    }
    form.dataset.sent = "1";
  }
});
window.addEventListener("pageshow", function () {
  document.querySelectorAll("form[data-sent]").forEach(function (form) {
    form.removeAttribute("data-sent");
  });
});
// "Salvar como PDF" / "Save as PDF": the browser's own print dialog (hidden without the script).
document.querySelectorAll("[data-print]").forEach(function (button) {
  button.hidden = false;
  button.addEventListener("click", function () {
    window.print();
  });
});
// Live status: a pending charge's page polls the panel's small JSON status route and, when the
// status changes, swaps in the page's new content (no reload, the reader keeps its place) and
// announces it. Polling slows down after a while and pauses while the tab is hidden.
(function () {
  var live = document.querySelector("[data-live-status]");
  if (!live || !window.fetch) return;
  var url = live.getAttribute("data-live-status");
  var initial = live.getAttribute("data-status");
  var started = Date.now();
  var timer = null;
  var busy = false;
  function delay() {
    var age = Date.now() - started;
    return age < 120000 ? 2000 : age < 900000 ? 5000 : 15000;
  }
  function schedule() {
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(poll, delay());
  }
  function swap() {
    document.querySelectorAll("[data-testid=pay-now]").forEach(function (b) {
      b.disabled = true;
    });
    return fetch(window.location.pathname, { credentials: "same-origin", cache: "no-store" })
      .then(function (r) {
        if (!r.ok) throw new Error(String(r.status));
        return r.text();
      })
      .then(function (text) {
        var next = new DOMParser().parseFromString(text, "text/html").getElementById("content");
        var main = document.getElementById("content");
        if (next && main) {
          main.replaceChildren.apply(main, Array.prototype.slice.call(next.childNodes).map(function (n) {
            return document.importNode(n, true);
          }));
        }
        var say = document.getElementById("live-announce");
        var from = next && next.querySelector("[data-live-message]");
        if (say && from) say.textContent = from.getAttribute("data-live-message");
      });
  }
  function poll() {
    timer = null;
    if (document.hidden || busy) return schedule();
    busy = true;
    fetch(url, { credentials: "same-origin", cache: "no-store", headers: { accept: "application/json" } })
      .then(function (r) {
        if (!r.ok) throw new Error(String(r.status));
        return r.json();
      })
      .then(function (body) {
        if (body && body.status && body.status !== initial) {
          return swap().then(function () {
            busy = false;
          });
        }
        busy = false;
        schedule();
      })
      .catch(function () {
        busy = false;
        schedule();
      });
  }
  document.addEventListener("visibilitychange", function () {
    if (!document.hidden && timer === null && !busy) poll();
  });
  schedule();
})();
// The chart's tooltips on touch screens (no hover there): a tap or a pointer over a day writes
// its amounts in a line under the chart (the same text as the day's SVG title).
document.querySelectorAll(".chart svg.bars").forEach(function (svg) {
  var tip = document.createElement("p");
  tip.className = "chart-tip";
  tip.setAttribute("data-testid", "chart-tip");
  tip.setAttribute("aria-live", "polite");
  svg.insertAdjacentElement("afterend", tip);
  function show(event) {
    var target = event.target;
    if (!(target instanceof Element)) return;
    var day = target.closest("g.day");
    var title = day && day.querySelector("title");
    if (title) tip.textContent = title.textContent;
  }
  svg.addEventListener("click", show);
  svg.addEventListener("pointerover", show);
});
`

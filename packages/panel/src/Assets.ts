/**
 * The panel's only assets, served by the package itself (no CDN, nothing to build): one style
 * sheet and one small script of progressive enhancement (copy buttons, confirmations). Every page
 * works without the script.
 */

/** The style sheet. */
export const css = `
:root{--fg:#1b1f24;--muted:#57606a;--bg:#fff;--line:#d0d7de;--accent:#0b5fff;--ok:#116329;--bad:#a40e26;--warn:#7a4d00;--soft:#f6f8fa;color-scheme:light}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent)}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,summary:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.skip{position:absolute;left:-9999px}.skip:focus{left:8px;top:8px;background:#fff;padding:8px;z-index:10}
header.top{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center;justify-content:space-between;padding:10px 16px;border-bottom:1px solid var(--line);background:var(--soft)}
header.top .brand{font-weight:700;text-decoration:none;color:var(--fg)}
nav.main ul{list-style:none;display:flex;flex-wrap:wrap;gap:4px 14px;margin:0;padding:0}
nav.main a[aria-current=page]{font-weight:700;color:var(--fg)}
.switches{display:flex;flex-wrap:wrap;gap:8px;align-items:center}
.pill{display:inline-block;padding:2px 10px;border:1px solid var(--line);border-radius:999px;text-decoration:none;color:var(--fg);background:#fff}
.pill[aria-current=true]{background:var(--fg);color:#fff;border-color:var(--fg)}
.mode-live{background:#fff4e5}
main{max-width:1100px;margin:0 auto;padding:16px}
h1{font-size:1.5rem;margin:.5rem 0 1rem}
h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(220px,1fr));gap:12px}
.card{border:1px solid var(--line);border-radius:8px;padding:12px 16px}
.card .value{font-size:1.6rem;font-weight:700}
.banner{border:1px solid var(--bad);background:#ffebe9;color:var(--bad);padding:10px 14px;border-radius:8px;margin:0 0 12px}
.banner a,.error a{color:var(--bad);font-weight:700}
.notice{border:1px solid var(--ok);background:#dafbe1;color:var(--ok);padding:10px 14px;border-radius:8px;margin:0 0 12px}
.error{border:1px solid var(--bad);background:#ffebe9;color:var(--bad);padding:10px 14px;border-radius:8px;margin:0 0 12px}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.95rem}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{background:var(--soft)}
td.num,th.num{text-align:right;white-space:nowrap}
form.inline{display:inline}
form.stack{display:grid;gap:10px;max-width:460px}
form.filters{display:flex;flex-wrap:wrap;gap:8px 12px;align-items:flex-end}
label{display:block;font-weight:600}
input,select{font:inherit;padding:6px 8px;border:1px solid #8c959f;border-radius:6px;max-width:100%}
input[type=text],input[type=email],input[type=password],input[type=url]{width:100%}
.hint{color:var(--muted);font-size:.9rem;font-weight:400}
button,.button{font:inherit;padding:6px 14px;border-radius:6px;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer;text-decoration:none;display:inline-block}
button.secondary,.button.secondary{background:#fff;color:var(--accent)}
button.danger{background:var(--bad);border-color:var(--bad)}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em;word-break:break-all}
.secret{display:block;padding:8px;background:var(--soft);border:1px solid var(--line);border-radius:6px}
.status-completed,.status-delivered{color:var(--ok);font-weight:600}
.status-failed{color:var(--bad);font-weight:600}
.status-pending{color:var(--warn);font-weight:600}
.chart svg{width:100%;height:auto;max-height:280px}
.legend{display:flex;flex-wrap:wrap;gap:12px;list-style:none;padding:0;margin:6px 0}
.swatch{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:middle}
.s-received{background:#116329}.s-sent{background:#0b5fff}.s-fees{background:#a40e26}
dl.fields{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px}
dl.fields dt{font-weight:600}dl.fields dd{margin:0;word-break:break-all}
.qr img{width:240px;height:240px;image-rendering:pixelated;border:1px solid var(--line)}
.pager{display:flex;gap:12px;align-items:center;margin:12px 0}
.signin{max-width:420px;margin:48px auto}
@media (max-width:640px){header.top{flex-direction:column;align-items:flex-start}.card .value{font-size:1.3rem}main{padding:12px}}
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
`

/** The panel's own styles, all under `.fsp`: the same in its page and in an app's shadow root. */
export const styles = `
/* A container: the panel is narrow in an app's drawer as on a phone. */
.fsp { container-type: inline-size; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d2430; background: #fff; max-width: 1280px; margin: 0 auto; padding: .75rem 1rem; box-sizing: border-box; }
.fsp *, .fsp *::before, .fsp *::after { box-sizing: border-box; }
.fsp header { display: flex; align-items: center; gap: .75rem; flex-wrap: wrap; }
.fsp h1 { font-size: 1.2rem; margin: 0; flex: 1; }
.fsp h2 { font-size: 1rem; margin: 1rem 0 .4rem; }
.fsp h3 { font-size: .95rem; margin: .9rem 0 .2rem; border-top: 1px solid #e3e7ee; padding-top: .5rem; }
.fsp h4 { font-size: .8rem; margin: .5rem 0 .2rem; color: #4b5563; text-transform: uppercase; letter-spacing: .03em; }
.fsp a { color: #1d4ed8; }
.fsp .muted { color: #68707d; }
.fsp .row { display: flex; flex-wrap: wrap; gap: .45rem .6rem; align-items: center; margin: .4rem 0; }
.fsp .grow { flex: 1; min-width: 8rem; }
.fsp label { display: inline-flex; align-items: center; gap: .3rem; font-size: 13px; }
.fsp label.grow input { flex: 1; min-width: 0; }
.fsp input, .fsp select, .fsp button { font: inherit; font-size: 13px; padding: .3rem .5rem; border: 1px solid #c5ccd8; border-radius: 6px; background: #fff; color: inherit; max-width: 100%; }
.fsp input[type=checkbox] { padding: 0; }
.fsp button { background: #f3f5f8; cursor: pointer; }
.fsp button:hover:not(:disabled) { background: #e6eaf0; }
.fsp button:disabled { opacity: .5; cursor: default; }
.fsp .settings input[name=world], .fsp .settings input[name=token] { width: 11rem; }
.fsp .live { font-size: 12px; padding: .1rem .5rem; border-radius: 99px; }
.fsp .live.on { background: #dcfce7; color: #166534; }
.fsp .live.off { background: #f3f4f6; color: #6b7280; }
.fsp .world { margin: .3rem 0; font-size: 13px; color: #374151; overflow-wrap: anywhere; }
.fsp .error { color: #991b1b; background: #fef2f2; border: 1px solid #fecaca; border-radius: 6px; padding: .5rem .7rem; white-space: pre-wrap; overflow-wrap: anywhere; }
.fsp .ok { color: #166534; }
.fsp nav { display: flex; flex-wrap: wrap; gap: .25rem; border-bottom: 1px solid #d6dbe3; margin: .6rem 0 .4rem; }
.fsp nav button { border: none; border-bottom: 2px solid transparent; border-radius: 0; background: none; padding: .4rem .6rem; }
.fsp nav button.active { border-bottom-color: #1d4ed8; color: #1d4ed8; font-weight: 600; }
.fsp .scroll { overflow-x: auto; min-width: 0; }
.fsp table { border-collapse: collapse; width: 100%; font-size: 13px; }
.fsp td, .fsp th { text-align: left; padding: .3rem .45rem; border-bottom: 1px solid #eef0f4; vertical-align: top; }
.fsp th { font-weight: 600; color: #4b5563; white-space: nowrap; }
.fsp .journal tbody tr, .fsp .records tbody tr { cursor: pointer; }
.fsp tbody tr:hover { background: #f8fafc; }
.fsp tr.selected { background: #eff6ff; }
.fsp td.path { overflow-wrap: anywhere; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; }
.fsp td.token { overflow-wrap: anywhere; font-family: ui-monospace, monospace; font-size: 12px; }
.fsp .status { font-weight: 600; padding: 0 .35rem; border-radius: 4px; }
.fsp .s2 { background: #dcfce7; color: #166534; } .fsp .s3 { background: #e0e7ff; color: #3730a3; }
.fsp .s4 { background: #fef3c7; color: #92400e; } .fsp .s5 { background: #fee2e2; color: #991b1b; }
.fsp .fault { display: inline-block; font-size: 11px; background: #fde68a; color: #78350f; border-radius: 4px; padding: 0 .3rem; margin: 0 .2rem .1rem 0; }
.fsp .conduct { display: inline-block; font-size: 11px; background: #fecaca; color: #7f1d1d; border-radius: 4px; padding: 0 .3rem; margin: 0 .2rem .1rem 0; }
.fsp button.link { background: none; border: none; padding: 0 .2rem; color: inherit; text-decoration: underline; cursor: pointer; }
.fsp .findings li { margin-bottom: .6rem; }
.fsp .via { display: inline-block; font-size: 11px; font-family: system-ui, sans-serif; background: #ede9fe; color: #5b21b6; border-radius: 4px; padding: 0 .3rem; }
.fsp .empty { color: #4b5563; background: #f8fafc; border: 1px dashed #d6dbe3; border-radius: 6px; padding: 1rem; text-align: center; }
.fsp .split { display: grid; grid-template-columns: minmax(0, 1fr); gap: .75rem; }
.fsp .split:has(.details) { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); }
.fsp .details { border: 1px solid #d6dbe3; border-radius: 8px; padding: .5rem .75rem; min-width: 0; align-self: start; }
.fsp .details h2 { margin: 0; }
.fsp table.changes td { vertical-align: top; font-size: 12px; }
.fsp select[name=before] { max-width: 14rem; }
.fsp table.changes tr.add td:first-child { border-left: 3px solid #16a34a; }
.fsp table.changes tr.remove td:first-child { border-left: 3px solid #dc2626; }
.fsp table.changes tr.replace td:first-child { border-left: 3px solid #d97706; }
.fsp .details > .row:first-child { flex-wrap: nowrap; }
.fsp .url { font-family: ui-monospace, monospace; font-size: 12px; overflow-wrap: anywhere; margin: .2rem 0; }
.fsp .facts { display: grid; grid-template-columns: auto 1fr; gap: .1rem .7rem; margin: .4rem 0; font-size: 13px; }
.fsp .facts dt { color: #6b7280; } .fsp .facts dd { margin: 0; }
.fsp pre { background: #f8fafc; border: 1px solid #eef0f4; border-radius: 6px; padding: .5rem; overflow: auto; max-height: 22rem; font-size: 12px; margin: .2rem 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.fsp .headers th { font-family: ui-monospace, monospace; font-weight: 500; font-size: 12px; white-space: normal; overflow-wrap: anywhere; width: 38%; }
.fsp .headers td { font-family: ui-monospace, monospace; font-size: 12px; overflow-wrap: anywhere; }
.fsp .chips { display: flex; flex-wrap: wrap; gap: .4rem; }
.fsp .chip b { color: #1d4ed8; margin-left: .25rem; }
.fsp .records td { max-width: 18rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.fsp .records tr.record td { max-width: none; white-space: normal; }
.fsp .scenario { padding: .35rem 0; border-bottom: 1px solid #eef0f4; }
.fsp .scenario label.name { font-weight: 600; min-width: 12rem; }
.fsp .scenario input.option { width: 7rem; }
.fsp .lane { display: flex; flex-wrap: wrap; gap: .3rem .6rem; align-items: center; padding: .2rem 0; }
.fsp .lane-name { min-width: 12rem; font-weight: 600; }
.fsp .lane-track { position: relative; flex: 1 1 12rem; height: .8rem; background: #eef0f4; border-radius: 3px; }
.fsp .lane-track .bar { position: absolute; top: 0; bottom: 0; background: #93c5fd; border-radius: 3px; }
.fsp .lane-track .bar.on { background: #1d4ed8; }
.fsp .lane-track .now { position: absolute; top: -.2rem; bottom: -.2rem; width: 2px; background: #dc2626; }
.fsp .lane-when { font-size: .85em; color: #68707d; }
.fsp code { background: #f3f5f8; padding: 0 .2rem; border-radius: 3px; }
.fsp .close { margin-left: auto; }
.fsp .clock { font-variant-numeric: tabular-nums; }
.fsp form.find { display: inline-flex; gap: .3rem; align-items: center; }
.fsp form.find input { width: 12rem; }
.fsp details.columns { position: relative; }
.fsp details.columns summary { cursor: pointer; font-size: 13px; padding: .3rem .5rem; border: 1px solid #c5ccd8; border-radius: 6px; background: #f3f5f8; list-style: none; }
.fsp details.columns .picker { position: absolute; z-index: 2; right: 0; top: 2.1rem; background: #fff; border: 1px solid #d6dbe3; border-radius: 8px; box-shadow: 0 4px 16px rgba(0,0,0,.12); padding: .5rem .7rem; display: grid; grid-template-columns: repeat(2, minmax(8rem, auto)); gap: .2rem .8rem; max-height: 18rem; overflow: auto; }
.fsp details.value { display: inline-block; vertical-align: top; }
.fsp details.value summary { cursor: pointer; color: #1d4ed8; font-family: ui-monospace, monospace; font-size: 12px; max-width: 16rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.fsp details.value[open] > summary { max-width: none; }
.fsp details.value dl { display: grid; grid-template-columns: auto 1fr; gap: .05rem .6rem; margin: .2rem 0 .3rem .9rem; padding-left: .5rem; border-left: 2px solid #e3e7ee; white-space: normal; }
.fsp details.value dt { color: #6b7280; font-family: ui-monospace, monospace; font-size: 12px; }
.fsp details.value dd { margin: 0; overflow-wrap: anywhere; }
.fsp .nil { color: #9ca3af; }
.fsp .number, .fsp .boolean { color: #7c3aed; }
.fsp .records td { overflow: visible; }
/* Wide: header, settings and tabs stay in view; the tab scrolls, and a request's list and its
   details each scroll on their own (the in-page drawer, 820 px, too). */
@container (min-width: 761px) {
  .fsp .frame { height: calc(100dvh - 1.5rem); display: flex; flex-direction: column; }
  .fsp .frame > main { flex: 1; min-height: 0; overflow: auto; }
  .fsp .frame > main:has(> .requests) { overflow: hidden; display: flex; flex-direction: column; }
  .fsp .requests { flex: 1; min-height: 0; display: flex; flex-direction: column; }
  .fsp .requests > .split { flex: 1; min-height: 0; }
  .fsp .requests > .split > .scroll, .fsp .requests > .split > .details { max-height: 100%; overflow: auto; }
}
.fsp .editor label { display: flex; flex-direction: column; gap: .3rem; }
.fsp .editor textarea { width: 100%; box-sizing: border-box; font: 12px/1.4 ui-monospace, monospace; }
.fsp .overrides td.used { font-weight: 600; }
@media (max-width: 760px) {
  .fsp { padding: .5rem .6rem 2rem; }
}
@container (max-width: 760px) {
  .fsp .split:has(.details) { grid-template-columns: minmax(0, 1fr); }
}
@container (max-width: 760px) {
  .fsp .wide { display: none; }
  .fsp .settings label { width: 100%; }
  .fsp .settings input[name=world], .fsp .settings input[name=token] { flex: 1; width: auto; }
  .fsp nav button { padding: .35rem .45rem; }
}
`

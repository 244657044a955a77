import { analyse } from "./lib/profile.js"
const pairs = process.argv.slice(2).map((a) => a.split(":"))
const cols = pairs.map(([file, n]) => {
  const a = analyse(file)
  const per = (ms: number) => (ms * 1000) / Number(n)
  const m = new Map<string, number>()
  const add = (k: string, v: number) => m.set(k, (m.get(k) ?? 0) + per(v))
  for (const p of a.packages) add(p.name.replace(/^(\.\.\/)+tmp\/before\/(packages\/[^/]+).*$/, "$2"), p.ms)
  add("= busy", a.busyMs)
  add("  of which GC", a.self.find((s) => s.name === "(garbage collector)")?.ms ?? 0)
  add("  of which SQLite statements", a.self.filter((s) => s.name.includes("SqliteClient.js:55")).reduce((x, s) => x + s.ms, 0))
  add("  of which sealing", a.self.filter((s) => /node:internal\/crypto|^createUnsafeBuffer|vault.ts|NodeDataCipher|base64Url|Encoding.js|base64urlSlice/.test(s.name)).reduce((x, s) => x + s.ms, 0))
  return m
})
const keys = [...new Set(cols.flatMap((c) => [...c.keys()]))].sort((a, b) => (cols[cols.length - 1].get(b) ?? 0) - (cols[cols.length - 1].get(a) ?? 0))
for (const k of keys) { const vals = cols.map((c) => (c.get(k) ?? 0).toFixed(0).padStart(6)); if (cols.some((c) => (c.get(k) ?? 0) >= 5)) console.log(vals.join(" "), k) }

// Run: pnpm exec tsx --conditions=@pixgate/source bench/micro/qr.ts
// Microseconds per BR Code for each step of a charge's QR work: the module matrix (our
// QrMatrix.encode against qrcode.create, the same symbol), the PNG from the matrix, the base64
// text, and the whole QrImage.pngBase64; alternating rounds in one process so that a noisy
// neighbour hits each alike; the median round is printed.
import { cpus, loadavg } from "node:os"
import { performance } from "node:perf_hooks"
import { BrCode, Ids, QrImage, QrMatrix } from "@pixgate/core"
import { Either } from "effect"
import { create } from "qrcode"

const codes = Array.from({ length: 500 }, (_, i) =>
  Either.getOrThrow(
    BrCode.encode({
      kind: "dynamic",
      location: `pix.pixgate.dev/v2/cob/${Ids.randomBase62(25).toLowerCase()}`,
      merchantName: "PADARIA PAO QUENTE",
      merchantCity: "SAO PAULO",
      amountCents: 1000 + i
    })
  )
)
const matrices = codes.map((code) => QrMatrix.encode(code))
const pngs = codes.map((code) => QrImage.png(code))

let sink = 0
const steps: Record<string, (i: number) => void> = {
  "qrcode.create (matrix)": (i) => {
    sink += create(codes[i], { errorCorrectionLevel: "M" }).modules.size
  },
  "QrMatrix.encode (matrix)": (i) => {
    sink += QrMatrix.encode(codes[i]).size
  },
  "QrImage.png (matrix + PNG)": (i) => {
    sink += QrImage.png(codes[i]).length
  },
  "base64 of the PNG": (i) => {
    sink += Buffer.from(pngs[i]).toString("base64").length
  },
  "QrImage.pngBase64 (all)": (i) => {
    sink += QrImage.pngBase64(codes[i]).length
  }
}

const rounds = Number(process.argv[2] ?? 7)
const samples = new Map<string, Array<number>>()
for (let round = -1; round < rounds; round++) {
  for (const [name, step] of Object.entries(steps)) {
    const start = performance.now()
    for (let i = 0; i < codes.length; i++) step(i)
    const us = ((performance.now() - start) * 1000) / codes.length
    if (round >= 0) samples.set(name, [...(samples.get(name) ?? []), us])
  }
}
console.log(
  `${codes.length} BR Codes of ${codes[0].length} characters (version ${matrices[0].version}), ${rounds} rounds; ${cpus().length} CPUs, load ${loadavg()[0].toFixed(1)}`
)
for (const [name, values] of samples) {
  const sorted = [...values].sort((a, b) => a - b)
  console.log(
    `${name.padEnd(30)} median ${sorted[Math.floor(sorted.length / 2)].toFixed(1).padStart(7)} us   min ${sorted[0].toFixed(1).padStart(7)} us`
  )
}
if (sink === 0) console.log("")

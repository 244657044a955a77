/**
 * QR image: milliseconds per code for Pixgate's renderer (`QrImage.pngBase64`: our module
 * matrix `QrMatrix.encode`, then our 1-bit PNG and deflate) against `qrcode.toDataURL` (qrcode's
 * own matrix and PNG via pngjs and zlib), on the same dynamic BR Codes, same ECC level, scale
 * and margin, alternating rounds so that a noisy neighbour hits both alike. The matrix alone is
 * shown too: `QrMatrix.encode` against `qrcode.create`, which makes the same symbol.
 */
import { performance } from "node:perf_hooks"
import { BrCode, Ids, QrImage, QrMatrix } from "@pixgate/core"
import { Either } from "effect"
import QRCode from "qrcode"
import { compared, type Result } from "../lib/report.js"

const codes = (count: number): Array<string> =>
  Array.from({ length: count }, (_, i) =>
    Either.getOrThrow(
      BrCode.encode({
        kind: "dynamic",
        location: `pix.pixgate.dev/v2/cob/${Ids.randomBase62(25).toLowerCase()}`,
        merchantName: "PADARIA PAO QUENTE",
        merchantCity: "SAO PAULO",
        amountCents: 100 + i
      })
    )
  )

const options = {
  errorCorrectionLevel: "M",
  scale: QrImage.defaultScale,
  margin: QrImage.defaultMargin
} as const

const timeEach = async (
  inputs: ReadonlyArray<string>,
  render: (text: string) => unknown
): Promise<number> => {
  const start = performance.now()
  for (const text of inputs) await render(text)
  return (performance.now() - start) / inputs.length
}

/** Runs the comparison: `count` codes per round, `rounds` alternating rounds (median of rounds). */
export const run = async (count: number, rounds: number): Promise<ReadonlyArray<Result>> => {
  const inputs = codes(count)
  const ours = (text: string) => QrImage.pngBase64(text)
  const theirs = (text: string) => QRCode.toDataURL(text, options)
  const matrix = (text: string) => QrMatrix.encode(text)
  const theirMatrix = (text: string) => QRCode.create(text, { errorCorrectionLevel: "M" })
  // Warm-up: let the JIT compile all four paths.
  await timeEach(inputs.slice(0, Math.min(50, count)), ours)
  await timeEach(inputs.slice(0, Math.min(50, count)), theirs)
  await timeEach(inputs.slice(0, Math.min(50, count)), matrix)
  await timeEach(inputs.slice(0, Math.min(50, count)), theirMatrix)
  const samples = {
    ours: [] as number[],
    theirs: [] as number[],
    matrix: [] as number[],
    theirMatrix: [] as number[]
  }
  for (let round = 0; round < rounds; round++) {
    samples.ours.push(await timeEach(inputs, ours))
    samples.theirs.push(await timeEach(inputs, theirs))
    samples.matrix.push(await timeEach(inputs, matrix))
    samples.theirMatrix.push(await timeEach(inputs, theirMatrix))
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
  const oursMs = median(samples.ours)
  const theirsMs = median(samples.theirs)
  const matrixMs = median(samples.matrix)
  const theirMatrixMs = median(samples.theirMatrix)
  const speedup = theirsMs / oursMs
  return [
    {
      ...compared({
        name: "QR image (QrImage.pngBase64)",
        store: "-",
        metric: "time per code",
        value: oursMs,
        unit: "ms",
        baseline: theirsMs,
        baselineOf: "qrcode.toDataURL, same codes and size"
      }),
      target: "<= 0.25x (>= 4x faster)",
      met: speedup >= 4,
      note: `speedup ${speedup.toFixed(2)}x; ${count} codes x ${rounds} rounds`
    },
    {
      ...compared({
        name: "QR matrix only (QrMatrix.encode)",
        store: "-",
        metric: "time per code",
        value: matrixMs,
        unit: "ms",
        baseline: theirMatrixMs,
        baselineOf: "qrcode.create, same codes, same symbol"
      }),
      note: `speedup ${(theirMatrixMs / matrixMs).toFixed(2)}x; the matrix's share of QrImage.pngBase64`
    }
  ]
}

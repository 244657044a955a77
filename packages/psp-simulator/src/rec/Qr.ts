/**
 * The QR of a recurrence (`dadosQR` of `GET /rec/{idRec}?txid=`): journey 2, the recurrence
 * alone; journey 3, an immediate charge (cob) and the recurrence; journey 4, a due-date charge
 * (cobv) and the recurrence. The BR Code carries the charge's location in field 26 (only the GUI
 * for journey 2) and the recurrence's location in field 80, as the OpenAPI's examples do.
 */
import type { Bank } from "../Bank.js"
import { crc16 } from "../BrCode.js"
import type { Violacao } from "../Reply.js"
import type { Automatico } from "./Automatico.js"
import type { Rec } from "./Model.js"

const field = (id: string, value: string) => id + String(value.length).padStart(2, "0") + value
const gui = field("00", "br.gov.bcb.pix")

/** A composite BR Code: the charge's location (if any) and the recurrence's location. */
export const compositeBrCode = (input: {
  readonly cobLocation?: string
  readonly recLocation: string
  readonly merchantName: string
  readonly merchantCity: string
}) => {
  const body =
    field("00", "01") +
    (input.cobLocation === undefined ? "" : field("01", "12")) +
    field("26", gui + (input.cobLocation === undefined ? "" : field("25", input.cobLocation))) +
    field("52", "0000") +
    field("53", "986") +
    field("58", "BR") +
    field("59", input.merchantName.slice(0, 25)) +
    field("60", input.merchantCity.slice(0, 15)) +
    field("62", field("05", "***")) +
    field("80", gui + field("25", input.recLocation)) +
    "6304"
  return body + crc16(body)
}

/** `dadosQR` for a read, or the violation that makes the read invalid. */
export const dadosQR = (
  a: Automatico,
  bank: Bank,
  rec: Rec,
  txid: string | undefined
): { readonly dados?: { jornada: string; pixCopiaECola: string } } | { readonly violacao: Violacao } => {
  const loc = rec.loc === undefined ? undefined : a.state.locs.get(rec.loc)
  const names = { merchantName: bank.settings.merchantName, merchantCity: bank.settings.merchantCity }
  if (txid === undefined) {
    return loc
      ? {
          dados: {
            jornada: "JORNADA_2",
            pixCopiaECola: compositeBrCode({ recLocation: loc.location, ...names })
          }
        }
      : {}
  }
  const cob = bank.state.cobs.get(txid)
  if (!cob) return { violacao: { propriedade: "txid", razao: `No cob or cobv with txid ${txid}.` } }
  const jornada = cob.vencimento ? "JORNADA_4" : "JORNADA_3"
  const tipo = rec.ativacao.tipoJornada
  if (tipo !== "AGUARDANDO_DEFINICAO" && tipo !== jornada)
    return {
      violacao: {
        propriedade: "txid",
        razao: `txid is a ${cob.vencimento ? "cobv" : "cob"}, not for ${tipo}.`
      }
    }
  if (!cob.vencimento && rec.ativacao.dadosJornada && rec.ativacao.dadosJornada.txid !== txid)
    return { violacao: { propriedade: "txid", razao: "txid differs from ativacao.dadosJornada.txid." } }
  if (!loc) return {}
  return {
    dados: {
      jornada,
      pixCopiaECola: compositeBrCode({ cobLocation: cob.loc.location, recLocation: loc.location, ...names })
    }
  }
}

/** One EMV field: two-digit id, two-digit length, value. */
const field = (id: string, value: string) => id + String(value.length).padStart(2, "0") + value

/** CRC-16/CCITT-FALSE over the payload, as the BR Code's field 63 requires. */
export const crc16 = (payload: string) => {
  let crc = 0xffff
  for (const byte of Buffer.from(payload, "utf8")) {
    crc ^= byte << 8
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff
  }
  return crc.toString(16).toUpperCase().padStart(4, "0")
}

/** A dynamic BR Code ("Pix Copia e Cola") pointing at a location, as a PSP returns for a cob. */
export const dynamic = (input: {
  readonly location: string
  readonly merchantName: string
  readonly merchantCity: string
}) => {
  const body =
    field("00", "01") +
    field("01", "12") +
    field("26", field("00", "br.gov.bcb.pix") + field("25", input.location)) +
    field("52", "0000") +
    field("53", "986") +
    field("58", "BR") +
    field("59", input.merchantName.slice(0, 25)) +
    field("60", input.merchantCity.slice(0, 15)) +
    field("62", field("05", "***")) +
    "6304"
  return body + crc16(body)
}

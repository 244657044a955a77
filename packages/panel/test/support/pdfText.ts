/** The text of a PDF, read with pdf-parse (independent of pdfkit, which wrote it), whitespace collapsed. */
import { PDFParse } from "pdf-parse"

export const pdfText = async (bytes: Uint8Array): Promise<string> => {
  const parser = new PDFParse({ data: bytes })
  try {
    return (await parser.getText()).text.replace(/\s+/g, " ")
  } finally {
    await parser.destroy()
  }
}

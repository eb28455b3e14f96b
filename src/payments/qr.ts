/**
 * An invoice's QR code as text (the `qrcode` package). With `ansi` it uses the
 * terminal renderer, which paints with background colours and scans best on screen;
 * without, the UTF-8 half-block renderer, plain characters that survive NO_COLOR,
 * a file or a pipe.
 */
export async function renderQr(text: string, opts: { ansi: boolean }): Promise<string> {
  const { default: QRCode } = await import('qrcode');
  if (opts.ansi) return QRCode.toString(text, { type: 'terminal', small: true, errorCorrectionLevel: 'M' });
  return QRCode.toString(text, { type: 'utf8', margin: 2, errorCorrectionLevel: 'M' });
}

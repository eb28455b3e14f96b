/** The invoice's QR code drawn with half-block characters (the `qrcode` package's terminal renderer). */
export async function renderQr(text: string): Promise<string> {
  const { default: QRCode } = await import('qrcode');
  return QRCode.toString(text, { type: 'terminal', small: true, errorCorrectionLevel: 'M' });
}

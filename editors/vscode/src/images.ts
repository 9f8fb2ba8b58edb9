// Images the user pastes or drops into the conversation view's prompt box:
// the webview reads them as data URLs; the extension keeps each as a file
// in its state folder (globalStorageUri/images) and sends the files' URIs
// as agent/startTurn's images. The server bounds them (count, size) and
// refuses them, with a message, for a model that takes no images.

import * as vscode from 'vscode';

/** An image as the webview posts it. */
export interface PastedImage {
  name: string;
  dataUrl: string;
}

/** The file extension for an image MIME type, or undefined for one the model does not take. */
export function imageExtension(mime: string): string | undefined {
  return ({ 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' } as Record<string, string>)[mime];
}

/** The MIME type and bytes of a base64 data URL of an image the model takes. */
export function decodeDataUrl(u: string): { mime: string; bytes: Uint8Array } {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(u);
  if (!m || !imageExtension(m[1])) throw new Error('only PNG, JPEG, GIF and WebP images can be attached');
  return { mime: m[1], bytes: Buffer.from(m[2], 'base64') };
}

/** Writes the images under dir/images and returns their file URIs. */
export async function keepImages(dir: vscode.Uri, images: PastedImage[]): Promise<string[]> {
  const folder = vscode.Uri.joinPath(dir, 'images');
  await vscode.workspace.fs.createDirectory(folder);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const uris: string[] = [];
  for (const [i, img] of images.entries()) {
    const { mime, bytes } = decodeDataUrl(img.dataUrl);
    const file = vscode.Uri.joinPath(folder, `${stamp}-${i + 1}.${imageExtension(mime)}`);
    await vscode.workspace.fs.writeFile(file, bytes);
    uris.push(file.toString());
  }
  return uris;
}

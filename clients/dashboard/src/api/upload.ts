import { accessToken, expireAccessToken, refresh } from './session';
import type { Schemas } from './client';

/**
 * POST /captures/upload as multipart with upload progress (fetch cannot report it, so this
 * one request uses XMLHttpRequest), with the same bearer token and one refresh after a 401.
 */
export async function uploadCapture(
  file: File,
  fields: { title?: string; why?: string },
  onProgress: (fraction: number) => void,
): Promise<Schemas['Capture']> {
  const send = (token: string | null) =>
    new Promise<{ status: number; body: unknown }>((resolve, reject) => {
      const form = new FormData();
      if (fields.title) form.append('title', fields.title);
      if (fields.why) form.append('why', fields.why);
      form.append('file', file, file.name);
      const xhr = new XMLHttpRequest();
      xhr.open('POST', '/api/v1/captures/upload');
      if (token) xhr.setRequestHeader('Authorization', `Bearer ${token}`);
      xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
      xhr.onload = () => {
        let body: unknown = null;
        try {
          body = JSON.parse(xhr.responseText);
        } catch {
          /* not JSON */
        }
        resolve({ status: xhr.status, body });
      };
      xhr.onerror = () => reject(new Error('The upload could not reach the server'));
      xhr.send(form);
    });
  let token = await accessToken();
  let res = await send(token);
  if (res.status === 401 && token) {
    expireAccessToken();
    if (await refresh()) {
      token = await accessToken();
      res = await send(token);
    }
  }
  if (res.status >= 200 && res.status < 300) {
    onProgress(1);
    return res.body as Schemas['Capture'];
  }
  const problem = (res.body ?? {}) as { detail?: string; title?: string };
  throw new Error(problem.detail ?? problem.title ?? `Upload failed (HTTP ${res.status})`);
}

import { accessToken, expireAccessToken, refresh } from './session';
import { ApiError, type Schemas } from './client';

/**
 * POSTs a multipart form with upload progress (fetch cannot report it, so these requests use
 * XMLHttpRequest), with the session's bearer token and one refresh after a 401. A refusal is
 * an ApiError carrying the problem (413, 400 with its fields, 429 with Retry-After), shown as
 * the API's other errors are.
 */
async function postForm<T>(path: string, form: () => FormData, onProgress: (fraction: number) => void): Promise<T> {
  const send = (token: string | null) =>
    new Promise<{ status: number; body: unknown; retryAfter: string | null }>((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open('POST', `/api/v1${path}`);
      if (token) xhr.setRequestHeader('Authorization', `Bearer ${token}`);
      xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
      xhr.onload = () => {
        let body: unknown = null;
        try {
          body = JSON.parse(xhr.responseText);
        } catch {
          /* not JSON */
        }
        resolve({ status: xhr.status, body, retryAfter: xhr.getResponseHeader('Retry-After') });
      };
      xhr.onerror = () => reject(new Error('The upload could not reach the server'));
      xhr.send(form());
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
    return res.body as T;
  }
  const problem = (res.body && typeof res.body === 'object' ? res.body : {}) as ApiError['problem'];
  throw new ApiError(res.status, problem, res.retryAfter === null ? null : Number(res.retryAfter));
}

/** POST /captures/upload: a file captured with its optional title and why. */
export function uploadCapture(
  file: File,
  fields: { title?: string; why?: string },
  onProgress: (fraction: number) => void,
): Promise<Schemas['Capture']> {
  return postForm(
    '/captures/upload',
    () => {
      const form = new FormData();
      if (fields.title) form.append('title', fields.title);
      if (fields.why) form.append('why', fields.why);
      form.append('file', file, file.name);
      return form;
    },
    onProgress,
  );
}

/** POST /imports: a bookmark export, read by the server in the background (202 with the import). */
export function uploadImport(
  file: File,
  options: { para: boolean },
  onProgress: (fraction: number) => void,
): Promise<Schemas['Import']> {
  return postForm(
    '/imports',
    () => {
      const form = new FormData();
      form.append('para', String(options.para));
      form.append('file', file, file.name);
      return form;
    },
    onProgress,
  );
}

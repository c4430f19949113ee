import type { Request } from 'express';

/** How long an upload's body may take to arrive (docs/API.md "Uploads"). */
export interface UploadReadBounds {
  /** Seconds every upload has, whatever its pace (UPLOAD_READ_TIMEOUT_SECONDS). */
  graceSeconds: number;
  /** Each byte received earns 1/minBytesPerSecond s more (UPLOAD_READ_MIN_BYTES_PER_SECOND). */
  minBytesPerSecond: number;
}

/**
 * Milliseconds an upload's body may have taken once `received` bytes of it have arrived: the
 * grace period plus one second per `minBytesPerSecond` bytes. A body of N bytes must end within
 * grace + N / rate, and a client that slows below the rate after the grace period is cut as
 * soon as its average falls behind, so a slowloris holds its slots for about the grace period.
 */
export const uploadReadAllowanceMs = (received: number, bounds: UploadReadBounds): number =>
  bounds.graceSeconds * 1000 + (received * 1000) / bounds.minBytesPerSecond;

/** Requests abandoned by their read deadline: their answer closes the connection without reading more (discardBody). */
const abandoned = new WeakSet<Request>();
export const abandonUpload = (req: Request): void => void abandoned.add(req);
export const isAbandoned = (req: Request): boolean => abandoned.has(req);

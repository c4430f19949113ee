import type { Server } from 'node:http';

export interface ListenOptions {
  port: number;
  host: string;
  /** The setting that chose the port, named when it is taken (default PORT). */
  setting?: string;
  /** Added to that message, e.g. ", or to 0 to pick one". */
  hint?: string;
}

/**
 * Starts `server` listening and resolves once it does. A port already in use rejects with
 * the setting to change ("the metrics port 0.0.0.0:9464 is in use: set METRICS_PORT to a free
 * port"), which is what a person starting a second server on one machine needs; other errors
 * (an address not on this machine, a port below 1024) reject as they are.
 */
export function listen(server: Server, { port, host, setting = 'PORT', hint = '' }: ListenOptions): Promise<void> {
  const which = setting.replace(/_?PORT$/, '').toLowerCase();
  return new Promise<void>((resolve, reject) => {
    const refused = (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'EADDRINUSE'
          ? new Error(
              `the ${which ? `${which} ` : ''}port ${host}:${port} is in use: set ${setting} to a free port${hint}`,
            )
          : err,
      );
    server.once('error', refused);
    server.listen(port, host, () => {
      server.off('error', refused);
      resolve();
    });
  });
}

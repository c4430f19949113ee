/**
 * Registers the service worker (public/sw.js): the app shell offline and the Web Share Target
 * (manifest.webmanifest). Production builds only: the dev server's modules are not the shell.
 */
export function registerServiceWorker() {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  window.addEventListener('load', () => {
    navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch((err: unknown) => {
      // The app works without it (no offline shell, no share target): say so in the console only.
      console.warn('service worker not registered', err);
    });
  });
}

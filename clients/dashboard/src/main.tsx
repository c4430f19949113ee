import { createRoot } from 'react-dom/client';
import { App } from './App';
import { registerServiceWorker } from './pwa';
import './styles.css';

// No StrictMode: its doubled effects would spend a one-time sign-in token twice in development.
createRoot(document.getElementById('root')!).render(<App />);
registerServiceWorker();

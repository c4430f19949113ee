export default function CapturesPage() {
  return (
    <main id="main">
      <h1>Captures</h1>
    </main>
  );
}

export default function ParaPage() {
  return (
    <main id="main">
      <h1>Para</h1>
    </main>
  );
}

export default function NodesPage() {
  return (
    <main id="main">
      <h1>Nodes</h1>
    </main>
  );
}

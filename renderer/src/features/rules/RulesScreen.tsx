// Rules: every operation policy and every grant in one table, with what is
// in effect for each operation. (Being built for issue 17, part 3.)
export function RulesScreen() {
  return (
    <section aria-labelledby="rules-title">
      <h1 id="rules-title">Rules</h1>
    </section>
  );
}

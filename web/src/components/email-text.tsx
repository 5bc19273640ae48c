/** An e-mail address that may wrap after the `@` (never in the middle of a name) in narrow cells. */
export function EmailText({ value }: { value: string }) {
  const at = value.indexOf('@');
  if (at < 0) return <>{value}</>;
  return (
    <>
      {value.slice(0, at + 1)}
      <wbr />
      {value.slice(at + 1)}
    </>
  );
}

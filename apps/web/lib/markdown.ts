/**
 * A remark step for message Markdown: raw HTML (`<script>`, `<img onerror=…>`) becomes the literal
 * text it was — a conversation about HTML stays readable, and nothing in it is ever interpreted.
 */
interface MdNode {
  type: string;
  value?: string;
  children?: MdNode[];
}

function visit(node: MdNode): void {
  if (node.type === 'html') node.type = 'text';
  for (const child of node.children ?? []) visit(child);
}

export function htmlAsText() {
  return (tree: MdNode) => visit(tree);
}

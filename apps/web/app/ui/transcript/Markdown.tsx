import type { CSSProperties } from 'react';
import Markdown, { type Components } from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import rehypeSanitize from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';
import { htmlAsText } from '@/lib/markdown';
import './transcript.css';

/**
 * Message text as GitHub-flavoured Markdown, rendered on the server. Conversations carry text from
 * anyone (users, models, tools), so nothing in it runs or loads: raw HTML is shown as the text it
 * is, links keep only safe protocols (react-markdown's default: no `javascript:` or `data:`), images become labelled links (never
 * fetched), and the tree is sanitised before fenced code is highlighted.
 */
const COMPONENTS: Components = {
  a({ href, children }) {
    if (!href) return <span className="markdown__dead-link">{children}</span>;
    return (
      <a href={href} rel="noopener noreferrer nofollow" target="_blank">
        {children}
      </a>
    );
  },
  img({ src, alt }) {
    const label = alt || 'image';
    if (typeof src !== 'string' || !src) return <span className="content-chip">Image: {label}</span>;
    return (
      <a className="content-chip" href={src} rel="noopener noreferrer nofollow" target="_blank">
        <span aria-hidden="true">▣</span> Image: {label}
      </a>
    );
  },
  // GFM task lists: a read-only mark that says what it means (a disabled checkbox has no label).
  input({ type, checked }) {
    if (type !== 'checkbox') return null;
    return (
      <span className="markdown__task" role="img" aria-label={checked ? 'done' : 'not done'}>
        {checked ? '☑' : '☐'}
      </span>
    );
  },
  // GFM column alignment arrives as an inline `style` (text-align), which the dashboard's nonce CSP
  // blocks (style-src has no 'unsafe-inline'): the alignment is carried by a class instead.
  th({ style, children }) {
    return <th className={alignClass(style)}>{children}</th>;
  },
  td({ style, children }) {
    return <td className={alignClass(style)}>{children}</td>;
  },
  table({ children }) {
    return (
      <div className="table-wrap markdown__table">
        <table className="table">{children}</table>
      </div>
    );
  },
};

const ALIGNMENTS = new Set(['left', 'center', 'right']);

/** `markdown__align--center` for `{textAlign: 'center'}`; nothing for a column without alignment. */
export function alignClass(style: CSSProperties | undefined): string | undefined {
  const align = style?.textAlign;
  return typeof align === 'string' && ALIGNMENTS.has(align) ? `markdown__align--${align}` : undefined;
}

export function MarkdownText({ text }: { text: string }) {
  return (
    <div className="message__text markdown">
      <Markdown
        remarkPlugins={[remarkGfm, htmlAsText]}
        rehypePlugins={[rehypeSanitize, [rehypeHighlight, { detect: false }]]}
        components={COMPONENTS}
      >
        {text}
      </Markdown>
    </div>
  );
}

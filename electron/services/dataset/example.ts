/**
 * The one internal shape every format is normalised to. Later steps render
 * chat examples through the model's chat template and chunk text examples to
 * the context length, so this is all they need to know about the input.
 */

export type Role = 'system' | 'user' | 'assistant' | 'tool';

/** An assistant's call of a tool, in the OpenAI shape. */
export interface ToolCall {
  id?: string;
  type: 'function';
  function: {
    name: string;
    /** JSON text of the arguments (objects given in the input are serialised). */
    arguments: string;
  };
}

export interface ChatMessage {
  role: Role;
  /** Text content; `''` for an assistant turn that only calls tools. */
  content: string;
  /** Assistant tool calls. */
  tool_calls?: ToolCall[];
  /** On a tool message: the id of the call it answers. */
  tool_call_id?: string;
  /** On a tool message: the tool's name; on others: an optional speaker name. */
  name?: string;
  /** 0 excludes this turn from the loss; absent means the default (assistant turns train). */
  weight?: 0 | 1;
}

/** Where a record came from; `line` follows the same rule as `Problem.line`. */
export interface Source {
  file: string;
  line: number;
}

export interface ChatExample {
  kind: 'chat';
  messages: ChatMessage[];
  /** Tool definitions offered to the model (OpenAI `tools` shape, passed through). */
  tools?: unknown[];
  source: Source;
}

export interface TextExample {
  kind: 'text';
  text: string;
  source: Source;
  /**
   * Set for plain-text files, which are cut into segments at paragraph
   * breaks: segments with the same `id` are consecutive parts of one
   * document, so a chunker can join them without crossing documents.
   */
  document?: { id: string; part: number };
}

export type Example = ChatExample | TextExample;

/** An accepted example and the side of the split it belongs to. */
export interface SplitExample {
  split: 'train' | 'eval';
  example: Example;
}

/** The XSS corpus shared by the Node, Chromium and runtime-matrix checks. */
export declare const XSS_CORPUS: string[];

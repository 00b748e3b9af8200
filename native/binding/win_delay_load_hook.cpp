// Windows: the addon links against node.lib (made from node-api-headers' .def file), which
// names NODE.EXE. Electron's executable has another name, so resolve the delay-loaded
// "node.exe" to whatever executable loaded us (as node-gyp's hook does).
#if defined(_MSC_VER)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <delayimp.h>
#include <string.h>

static FARPROC WINAPI hone_load_exe_hook(unsigned int event, DelayLoadInfo * info) {
    if (event != dliNotePreLoadLibrary) return nullptr;
    if (_stricmp(info->szDll, "node.exe") != 0) return nullptr;
    return (FARPROC) GetModuleHandle(nullptr);
}

extern "C" const PfnDliHook __pfnDliNotifyHook2 = hone_load_exe_hook;
#endif

// run_isolated (hone_tools.h): a call in a forked child, its crash reported as text.
#include "hone_tools.h"


#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifndef _WIN32
#  include <csignal>
#  include <poll.h>
#  include <sys/wait.h>
#  include <unistd.h>
#endif

namespace hone {

#ifdef _WIN32

IsolatedResult run_isolated(const std::function<std::string()> & fn) {
    IsolatedResult r;
    r.output = fn();
    return r;
}

#else

namespace {

// Reads both pipes to their ends (a child that fills one while the other is read would block).
void drain(int out_fd, int err_fd, std::string & out, std::string & err) {
    pollfd fds[2] = { { out_fd, POLLIN, 0 }, { err_fd, POLLIN, 0 } };
    std::string * dst[2] = { &out, &err };
    int open = 2;
    char buf[65536];
    while (open > 0) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            const ssize_t n = read(fds[i].fd, buf, sizeof(buf));
            if (n > 0) {
                if (dst[i]->size() < (64u << 20)) dst[i]->append(buf, (size_t) n);
            } else if (n == 0 || errno != EINTR) {
                fds[i].fd = -1;
                open--;
            }
        }
    }
}

std::string signal_name(int sig) {
    switch (sig) {
        case SIGSEGV: return "segmentation fault";
        case SIGABRT: return "abort";
        case SIGFPE: return "floating-point exception (a division by zero)";
        case SIGBUS: return "bus error";
        case SIGILL: return "illegal instruction";
        case SIGKILL: return "killed (out of memory?)";
        case SIGALRM: return "alarm (its time limit ran out)";
        default: return std::string("signal ") + std::to_string(sig);
    }
}

// The assertion ggml reported before aborting ("GGML_ASSERT(n_expert > 0) failed"), else the
// last line the child wrote.
std::string last_words(const std::string & err) {
    std::string line;
    const size_t a = err.rfind("GGML_ASSERT(");
    if (a != std::string::npos) {
        const size_t f = err.find(" failed", a);
        line = err.substr(a, f == std::string::npos ? err.find('\n', a) - a : f + 7 - a);
    } else {
        const size_t end = err.find_last_not_of("\r\n ");
        if (end == std::string::npos) return "";
        const size_t nl = err.rfind('\n', end);
        const size_t begin = nl == std::string::npos ? 0 : nl + 1;
        line = err.substr(begin, end + 1 - begin);
    }
    return line.size() > 300 ? line.substr(0, 300) + "..." : line;
}

} // namespace

IsolatedResult run_isolated(const std::function<std::string()> & fn) {
    int out_pipe[2], err_pipe[2];
    IsolatedResult r;
    if (pipe(out_pipe) != 0) {
        r.output = fn();
        return r;
    }
    if (pipe(err_pipe) != 0) {
        close(out_pipe[0]);
        close(out_pipe[1]);
        r.output = fn();
        return r;
    }
    // the child inherits unwritten stdio buffers: flushed here, or an abort's fflush in the
    // child would write the parent's pending output a second time
    fflush(stdout);
    fflush(stderr);
    const pid_t pid = fork();
    if (pid < 0) {
        for (int fd : { out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1] }) close(fd);
        r.output = fn();
        return r;
    }
    if (pid == 0) {
        // the child: its last words go to the parent, not to a terminal or a run's fatal file,
        // and ggml's abort skips its debugger backtrace
        dup2(err_pipe[1], STDERR_FILENO);
        for (int fd : { out_pipe[0], err_pipe[0], err_pipe[1] }) close(fd);
        unsetenv("HONE_FATAL_FILE");
        setenv("GGML_NO_BACKTRACE", "1", 1);
        std::string out;
        int code = 0;
        try {
            out = fn();
        } catch (const std::exception & e) {
            out = e.what();
            code = 3;
        }
        for (size_t at = 0; at < out.size();) {
            const ssize_t n = write(out_pipe[1], out.data() + at, out.size() - at);
            if (n <= 0) break;
            at += (size_t) n;
        }
        _exit(code); // no destructors or atexit handlers of the parent's state
    }
    close(out_pipe[1]);
    close(err_pipe[1]);
    std::string err;
    drain(out_pipe[0], err_pipe[0], r.output, err);
    close(out_pipe[0]);
    close(err_pipe[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return r;
    r.crashed = true;
    if (WIFSIGNALED(status)) {
        r.how = signal_name(WTERMSIG(status));
    } else if (WEXITSTATUS(status) == 3) {
        r.how = "exception: " + r.output;
    } else {
        r.how = "exit code " + std::to_string(WEXITSTATUS(status));
    }
    const std::string words = last_words(err);
    if (!words.empty() && r.how.rfind("exception", 0) != 0) r.how += ": " + words;
    r.output.clear();
    return r;
}

#endif

} // namespace hone

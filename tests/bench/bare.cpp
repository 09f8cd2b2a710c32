// The baseline for `make bench`: only what parity-torch must do for a demo
// run, with nothing around it: for each dtype, load the model, then one
// forward per example (token ids read from a file, one example per line).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <torch/script.h>
#include <torch/utils.h>

int main(int argc, char **argv)
{
    if (argc < 4) {
        std::fprintf(stderr, "usage: bench-bare MODEL IDS_FILE DTYPE...\n");
        return 2;
    }
    std::vector<std::vector<int64_t>> rows;
    std::ifstream in(argv[2]);
    for (std::string line; std::getline(in, line);) {
        std::istringstream ss(line);
        std::vector<int64_t> ids;
        for (int64_t v; ss >> v;)
            ids.push_back(v);
        if (!ids.empty())
            rows.push_back(ids);
    }
    torch::set_num_threads(1);
    double checksum = 0;
    for (int d = 3; d < argc; d++) {
        auto dtype = std::string(argv[d]) == "bfloat16" ? torch::kBFloat16 : torch::kFloat32;
        auto m = torch::jit::load(argv[1]);
        m.to(dtype);
        m.eval();
        c10::InferenceMode guard;
        // The probe parity runs before the examples, so both do the same work.
        std::vector<std::vector<int64_t>> all = {{rows.empty() ? 0 : rows[0].front(), rows.empty() ? 0 : rows[0].back()}};
        all.insert(all.end(), rows.begin(), rows.end());
        for (auto &ids : all) {
            auto t = torch::from_blob(ids.data(), {1, (int64_t)ids.size()}, torch::kLong).clone();
            auto mask = torch::ones_like(t);
            auto out = m.forward({t, mask}).toTensor().to(torch::kDouble);
            checksum += out.sum().item<double>();
        }
    }
    std::printf("%zu examples, checksum %.6f\n", rows.size(), checksum);
    return 0;
}
